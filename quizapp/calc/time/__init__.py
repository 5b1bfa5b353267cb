"""Time bounds from the spec sheet: the least time a decode step, a prefill, the first token and a
whole request can take on the scenario's GPUs, and the greatest speeds that follow.

Each is a lower bound on time (an upper bound on speed): the bytes a step must move over the GPU's
memory bandwidth, or its FLOPs over the dense peak of the dtype it computes in, whichever is
larger. Real engines are slower; published measurements sit below every bound
(tests/calc/time/test_measurements.py).
"""
