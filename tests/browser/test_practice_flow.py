"""A candidate in the browser: answer, reveal, grade, then see it on the dashboard after a reload."""

import re

from playwright.sync_api import Page, expect


def test_answer_reveal_grade_dashboard(page: Page) -> None:
    page.goto("/practice")
    expect(page).to_have_url(re.compile(r"/cards/[a-z0-9-]+"))
    page.goto("/cards/kv-pool-users")
    page.fill("#answer", "37 users")
    page.get_by_role("button", name="Show short answer").click()
    expect(page.locator("#content-short .feedback")).to_contain_text("Right: 37 users.")
    expect(page.locator("#content-short")).to_contain_text("fits")

    page.get_by_role("button", name="Show full answer").click()
    expect(page.locator("#content-full")).to_contain_text("144 KiB")

    page.get_by_role("button", name="Show expected answer").first.click()
    page.locator("#stage-followup-1").get_by_role("button", name="I knew it").click()
    expect(page.locator("#stage-followup-1")).to_contain_text("You marked this: knew it.")

    page.locator("form.grade").get_by_role("button", name="Good").click()
    expect(page.locator(".notice.flash")).to_contain_text("Graded “Good”")

    page.reload()
    page.goto("/progress")
    expect(page.locator("#stat-reviews")).to_have_text("1")
    expect(page.locator("#stat-seen")).to_have_text("1")
    expect(page.locator("#card-kv-pool-users")).to_contain_text("good")
    expect(page.locator("svg[role=img]").first).to_be_visible()

    page.goto("/progress?card=kv-pool-users")
    history = page.locator("ol.history")
    expect(history).to_contain_text("answer: 37 users (right)")
    expect(history).to_contain_text("followup followup-1: knew")
    expect(history).to_contain_text("grade: good")
