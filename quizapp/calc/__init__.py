"""The calculator: vLLM's KV-cache sizing from real model configs. Pure Python, no Flask.

Start with :func:`calculate`; every value it returns carries its unit and its arithmetic.
"""

from .catalog import gpu_entries, load_model, model_entries, model_ids
from .compute import Quantity, Result, calculate
from .errors import CalcError
from .inputs import FIELDS, FIELD_NAMES, parse_inputs

__all__ = [
    "CalcError", "FIELDS", "FIELD_NAMES", "Quantity", "Result", "calculate", "gpu_entries", "load_model",
    "model_entries", "model_ids", "parse_inputs",
]
