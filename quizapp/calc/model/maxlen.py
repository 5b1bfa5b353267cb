"""The max_model_len vLLM serves when none is given, as ``_get_and_verify_max_len`` derives it.

vLLM 0.33 ``vllm/config/model.py`` ``_get_and_verify_max_len`` (the keys are in
``transformers_utils/model_arch_config_convertor.py`` ``derive_max_model_len_and_key``):
the smallest of the length keys the config has, ``model_max_length`` over all of them,
2,048 with a warning when there is none, then RoPE scaling, then LongRoPE's default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import CalcError

if TYPE_CHECKING:
    from .config import ModelConfig
    from ..versions import VllmRules

# vLLM's possible_keys, in its order.
LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
               "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
DEFAULT_MAX_LEN = 2048
# No real model scales its context more than this; a larger factor is a typo or an attack.
MAX_ROPE_FACTOR = 1024
# RoPE types whose factor does not lengthen the derived max_model_len (the config's
# max_position_embeddings already holds the scaled length). YaRN joined them in 0.33.
UNSCALED_ROPE = ("su", "longrope", "llama3")
UNSCALED_ROPE_033 = UNSCALED_ROPE + ("yarn", "deepseek_yarn", "deepseek_llama_scaling")


def length_from_keys(cfg: dict) -> tuple[int | None, str | None]:
    """The smallest length key the config sets; ``model_max_length`` wins over the others."""
    found, key = None, None
    for name in LENGTH_KEYS:
        value = cfg.get(name)
        if value is not None and not isinstance(value, bool) and isinstance(value, (int, float)):
            if found is None or value < found:
                found, key = value, name
    override = cfg.get("model_max_length")
    if isinstance(override, (int, float)) and not isinstance(override, bool) and override:
        found, key = override, "model_max_length"
    if found is not None and (found != found or found in (float("inf"), float("-inf")) or found < 1):
        raise CalcError(f"config field '{key}' must be a positive number of tokens, got {found!r}", f"config.{key}")
    return (int(found), key) if found is not None else (None, None)


def no_length_key_warning(rules: VllmRules) -> str:
    """vLLM's warning, word for word, for a config.json without any length key."""
    if rules.max_len_warning_lists_keys:
        return ("The model's config.json does not contain any of the following keys to determine the original "
                f"maximum length of the model: {list(LENGTH_KEYS)}. Assuming the model's maximum length is "
                f"{DEFAULT_MAX_LEN}.")
    return ("The model's config.json does not contain any of the keys to determine the original maximum length "
            f"of the model. Assuming the model's maximum length is {DEFAULT_MAX_LEN}.")


def _rope(cfg: dict) -> dict | None:
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if not isinstance(rope, dict):
        return None
    kind = rope.get("rope_type") or rope.get("type") or "default"
    return dict(rope, rope_type=kind)


def default_max_model_len(model: ModelConfig, rules: VllmRules) -> tuple[int, str, list[str]]:
    """(length, derivation, notes) of the max_model_len vLLM uses when none is given."""
    cfg, notes = model.raw, []
    derived, key = model.max_position_embeddings, model.max_len_key
    if derived is None:
        notes.append(f"vLLM warns: \"{no_length_key_warning(rules)}\"")
        derived, why = DEFAULT_MAX_LEN, f"no length key in {model.config_source}: vLLM assumes {DEFAULT_MAX_LEN:,}"
    else:
        why = f"the model's {key}, {derived:,} tokens"
    rope = _rope(cfg)
    if rope is not None and "gemma3" not in model.model_type:
        derived, why = _scaled(derived, why, rope, rules)
    original = cfg.get("original_max_position_embeddings")
    if (rope is not None and rope["rope_type"] == "longrope" and rules.longrope_defaults_to_original
            and isinstance(original, int) and not isinstance(original, bool) and 0 < original != derived):
        notes.append(f"LongRoPE: vLLM {rules.version} defaults max_model_len to original_max_position_embeddings "
                     f"({original:,}) \"to avoid performance degradation for shorter sequences\"; give "
                     f"max_model_len up to {derived:,} for the long context")
        return original, f"not given: LongRoPE's original_max_position_embeddings, {original:,} tokens", notes
    return derived, f"not given: {why}", notes


def _scaled(derived: int, why: str, rope: dict, rules: VllmRules) -> tuple[int, str]:
    """vLLM multiplies the derived length by the RoPE factor of the types that lengthen it."""
    kind = rope["rope_type"]
    unscaled = UNSCALED_ROPE if rules.yarn_scales_original else UNSCALED_ROPE_033
    factor = rope.get("factor")
    if kind in unscaled or not isinstance(factor, (int, float)) or isinstance(factor, bool) or factor == 1:
        return derived, why
    if not 0 < factor <= MAX_ROPE_FACTOR:
        raise CalcError(f"config rope_scaling factor {factor!r} is not a positive number up to {MAX_ROPE_FACTOR:,}",
                        "config.rope_scaling")
    if kind == "yarn" and isinstance(rope.get("original_max_position_embeddings"), int) \
            and rope["original_max_position_embeddings"] > 0:
        original = rope["original_max_position_embeddings"]
        length = int(original * factor)
        return length, (f"YaRN original_max_position_embeddings {original:,} × factor {factor:g} = {length:,} "
                        f"tokens (vLLM {rules.version})")
    length = int(derived * factor)
    return length, f"{why} × {kind} RoPE factor {factor:g} = {length:,} tokens"
