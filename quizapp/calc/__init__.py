"""The calculator: vLLM's KV-cache sizing from real model configs. Pure Python, no Flask.

Start with :func:`calculate`; every value it returns carries its unit and its arithmetic.
:func:`read_log` reads a vLLM startup log and sets it beside the calculator's prediction.
Other packages import from here, not from the modules inside.
"""

from . import fmt
from .model.attention import ATTENTION_KINDS, attention_kind
from .hardware.catalog import gpu_entries, load_gpu
from .model.catalog import canonical_model_id, load_model, model_entries, model_ids, unknown_model_error
from .compute import calculate
from .errors import CalcError, FieldError, did_you_mean
from .inputs import BY_NAME, FIELD_NAMES, FIELDS, Inputs, parse_field, parse_inputs
from .model.layout import KV_CACHE_DTYPES, kv_cache_dtypes_for
from .log.parse import MAX_LOG_CHARS
from .hardware.listings import gpu_prose_name
from .log.read import read_log
from .log.reading import LogReading
from .sizing.fit import FIT_CHECKS
from .sizing.refusals import CHECK_FIELDS
from .needs import NEEDS, needs_text
from .result import ALWAYS_PRESENT, VALUES, Quantity, Result
from .versions import CURRENT as CURRENT_VLLM_VERSION
from .versions import KNOWN as VLLM_VERSIONS

__all__ = [
    "ALWAYS_PRESENT", "ATTENTION_KINDS", "BY_NAME", "CHECK_FIELDS", "CURRENT_VLLM_VERSION", "CalcError", "FIELDS", "FIT_CHECKS",
    "FieldError",
    "FIELD_NAMES", "Inputs", "KV_CACHE_DTYPES", "LogReading", "MAX_LOG_CHARS", "NEEDS", "Quantity", "Result",
    "VALUES", "VLLM_VERSIONS", "attention_kind", "calculate", "canonical_model_id", "did_you_mean", "fmt",
    "gpu_entries", "gpu_prose_name", "kv_cache_dtypes_for", "load_gpu", "load_model", "model_entries", "model_ids", "needs_text",
    "parse_field", "parse_inputs", "read_log", "unknown_model_error",
]
