"""The GPUs: the shipped catalog (memory, as vLLM sizes against it) and each GPU's spec-sheet
figures for the time bounds (bandwidth, dense FLOP/s by dtype, interconnect), each with its source."""
