"""Issue 17's acceptance over the shipped bank: every option a card's panel offers can start (or is a
refusal the card teaches), and no rendered sentence names a GPU that the scenario's weights do not fit.

The options are the checker's (``check.renders.choices``): the card's scenario, each variant, each
model of its space and each pool rule the panel offers. A GPU is "named" when its prose name (the
catalog's, as ``gpu_name`` prints it) appears in a rendered stage; the scenario's weights are then
counted on that GPU at the scenario's tensor parallel size.
"""

import re
from dataclasses import replace

import pytest

from quizapp.calc import CalcError, calculate, gpu_entries, gpu_prose_name
from quizapp.cards import load_card
from quizapp.cards.check.renders import choices, plain_text
from quizapp.cards.scenario import resolve_scenario
from quizapp.cards.template.limits import render_budget
from quizapp.cards.template.render import render_piece

from tests.paths import QUESTIONS

NAMES = {gpu_prose_name(g["id"]): g["id"] for g in gpu_entries()}
NAMED = re.compile("|".join(sorted((re.escape(n) for n in NAMES), key=len, reverse=True)))


@pytest.mark.parametrize("path", sorted(QUESTIONS.glob("*.md")), ids=lambda p: p.stem)
def test_every_option_can_start_and_names_only_gpus_its_weights_fit(path):
    with render_budget(120):  # the checker's budget, not a request's: this machine may be loaded
        card = load_card(path, str(path))
        for choice in choices(card, True):
            try:
                scenario = resolve_scenario(card, choice.variant, dict(choice.overrides), choice.pool_rule)
            except CalcError:
                continue  # the panel refuses it beside the field (quizapp check holds which may)
            fit = scenario.result.fit
            if not (card.space and card.space.refusals):
                assert fit is None or fit.fits, (choice.label, fit.verdict)
            text = " ".join(plain_text(render_piece(card, key, scenario).html) for key in card.pieces)
            for name in set(NAMED.findall(text)):
                gpu = NAMES[name]
                if gpu == scenario.inputs.gpu:
                    continue
                try:
                    there = calculate(replace(scenario.inputs, gpu=gpu), suggest=False).fit
                except CalcError:
                    continue
                assert there is None or there.check != "weights_fit", (choice.label, name, there.verdict)
