"""Every page on a phone (390 × 844): nothing scrolls sideways, the reveal buttons are big enough to tap,
and the calculator sits below the card. On a desktop (1280 px) the calculator sits beside the answer.

"Scrolls sideways" means the document is wider than the window: a code block or a table may still
scroll inside itself, which is what the stylesheet asks of them.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
MIN_TAP_PX = 44  # WCAG 2.5.5 and Apple's guidelines: a target a finger can hit
MAX_REVEALS = 30  # more reveal clicks than any card has stages: a loop that never ends is a failure

# The outermost elements that stick out of the window, for a failure message that says where to look.
# An element inside a scroll container (a code block's line) does not widen the page.
WIDER_THAN_WINDOW = """() => {
  const width = window.innerWidth;
  const sticksOut = el => el.getBoundingClientRect().right > width + 0.5;
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const found = [];
  (function walk(el) {
    for (const child of el.children) {
      if (sticksOut(child)) found.push(name(child));
      else if (!scrolls(child)) walk(child);
    }
  })(document.body);
  return found.slice(0, 8);
}"""


def assert_fits_the_window(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, (
        f"{page.url} scrolls sideways: {scroll_width} px wide in a {inner_width} px window; "
        f"too wide: {page.evaluate(WIDER_THAN_WINDOW)}")


def goto(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.ok, (path, response and response.status)
    if page.locator(".card-page form.reveal").count():
        # app.js is deferred; wait until it handles the reveal forms, so a click reveals in place.
        page.wait_for_function(
            "() => [...document.querySelectorAll('form.reveal')].every(f => f.dataset.bound === '1')")


def bank_card_ids(page: Page) -> list[str]:
    goto(page, "/")
    hrefs = page.locator(".bank-card h2 a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    ids = [href.rsplit("/", 1)[-1].split("?")[0] for href in hrefs]
    assert ids, "the bank lists no card"
    return ids


def visible_reveal_buttons(page: Page):
    return [b for b in page.locator("form.reveal button:not([disabled])").all() if b.is_visible()]


def reveal_every_stage(page: Page) -> None:
    """Press the page's reveal buttons, first one first, until none is left to press."""
    for _ in range(MAX_REVEALS):
        buttons = visible_reveal_buttons(page)
        if not buttons:
            break
        content_id = buttons[0].get_attribute("aria-controls")
        buttons[0].click()
        expect(page.locator(f"#{content_id}")).not_to_be_empty()
    else:
        pytest.fail(f"{page.url}: still a reveal button after {MAX_REVEALS} reveals")
    expect(page.locator(".card-page .stage:not(.revealed)")).to_have_count(0)


def box(page: Page, selector: str) -> dict:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not on the page"
    return found


@pytest.fixture
def phone(page: Page) -> Page:
    page.set_viewport_size(PHONE)
    return page


@pytest.mark.parametrize("path", ["/", "/me", "/author/", "/practice"])
def test_page_does_not_scroll_sideways_on_a_phone(phone: Page, path: str) -> None:
    goto(phone, path)  # a new reader's /practice opens the first card due
    assert_fits_the_window(phone)


def test_header_navigation_fits_a_phone_with_every_link_tappable(phone: Page) -> None:
    goto(phone, "/")
    for link in phone.locator("header.site nav a").all():
        link_box = link.bounding_box()
        assert link_box is not None and link_box["x"] + link_box["width"] <= PHONE["width"], link.inner_text()
        assert link_box["height"] >= MIN_TAP_PX, f"{link.inner_text()!r} is {link_box['height']} px tall"


def test_every_card_with_every_stage_revealed_fits_a_phone(phone: Page) -> None:
    for card_id in bank_card_ids(phone):
        goto(phone, f"/cards/{card_id}")
        assert_fits_the_window(phone)
        for button in visible_reveal_buttons(phone):
            button_box = button.bounding_box()
            assert button_box is not None
            assert min(button_box["height"], button_box["width"]) >= MIN_TAP_PX, (
                f"{card_id}: {button.inner_text()!r} is {button_box['width']} × {button_box['height']} px")

        reveal_every_stage(phone)

        assert_fits_the_window(phone)
        # The calculator comes after the card, not squeezed beside it.
        card_main, panel = box(phone, ".card-main"), box(phone, ".calc-panel")
        assert panel["y"] >= card_main["y"] + card_main["height"], card_id


def test_author_pages_fit_a_phone(phone: Page) -> None:
    goto(phone, "/author/")
    assert_fits_the_window(phone)
    for card_id in bank_card_ids(phone):
        goto(phone, f"/author/cards/{card_id}")  # the preview shows every stage
        assert_fits_the_window(phone)


def test_practice_and_progress_fit_a_phone_after_grading_every_card(phone: Page) -> None:
    """Grade each card /practice offers until none is due: the flash on the next card, the caught-up
    page and a dashboard with charts and a table all fit."""
    for _ in bank_card_ids(phone):
        goto(phone, "/practice")
        if phone.locator("#caught-up").count():
            break
        reveal_every_stage(phone)
        assert_fits_the_window(phone)
        phone.locator("form.grade").get_by_role("button", name="Good").click()
        expect(phone.locator(".notice.flash")).to_contain_text("Graded")
        assert_fits_the_window(phone)

    goto(phone, "/practice")
    expect(phone.locator("#caught-up")).to_be_visible()
    assert_fits_the_window(phone)

    goto(phone, "/progress")
    expect(phone.locator(".cards-table tbody tr").first).to_be_visible()
    assert_fits_the_window(phone)


def test_calculator_sits_beside_the_answer_on_a_desktop(page: Page) -> None:
    page.set_viewport_size(DESKTOP)
    card_id = bank_card_ids(page)[0]
    goto(page, f"/cards/{card_id}")
    reveal_every_stage(page)
    page.evaluate("window.scrollTo(0, 0)")

    card_main, panel = box(page, ".card-main"), box(page, ".calc-panel")
    assert panel["x"] >= card_main["x"] + card_main["width"], "the calculator is not to the right of the card"
    assert abs(panel["y"] - card_main["y"]) < 1, "the calculator does not start level with the card"
    assert card_main["width"] >= 600, f"the card column is only {card_main['width']} px wide"
    assert_fits_the_window(page)
