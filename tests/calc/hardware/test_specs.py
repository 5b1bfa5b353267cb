"""Every spec figure in the GPU catalog holds to its source: the value is the figure the quote prints,
halved where the source prints it with 2:4 sparsity (or bidirectionally, for a link), and the dense
figures agree with the documents as read for this test, written out below."""

import re

import pytest

from quizapp.calc import gpu_entries
from quizapp.calc.hardware.catalog import gpu_sources
from quizapp.calc.hardware.specs import gpu_specs

FIGURES = ("memory_bandwidth", "bf16", "fp16", "fp8", "fp4", "interconnect", "pair_link")
RATES = ("bf16", "fp16", "fp8", "fp4")


def figures():
    for gpu in gpu_entries():
        for name in FIGURES:
            if name in gpu["specs"]:
                yield pytest.param(gpu["id"], name, gpu["specs"][name], id=f"{gpu['id']}-{name}")


@pytest.mark.parametrize("gpu_id, name, figure", list(figures()))
def test_each_figure_is_what_its_quote_prints(gpu_id, name, figure):
    assert figure["source"] in gpu_sources()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", figure["date_read"])
    assert figure["printed"] in figure["quote"], "the figure must appear in the quote as the source prints it"
    printed = float(figure["printed"].replace(",", "")) * figure["scale"] / figure.get("shared_by", 1)
    halved = figure.get("sparse") or figure.get("bidirectional")
    assert figure["value"] == pytest.approx(printed / 2 if halved else printed, rel=1e-12)
    if figure.get("sparse"):
        assert "sparsity" in figure["quote"].lower(), "a sparse figure's quote says it is one"


def test_every_gpu_has_bandwidth_an_interconnect_and_a_tensor_rate():
    for gpu in gpu_entries():
        specs = gpu["specs"]
        assert specs["memory_bandwidth"]["value"] > 0 and specs["interconnect"]["value"] > 0, gpu["id"]
        assert any(rate in specs for rate in RATES), gpu["id"]


# The dense BF16 (T4: FP16) tensor peak of each GPU, in TFLOP/s, as its document prints it; a
# figure printed with sparsity is halved here by hand.
DENSE_BF16 = {
    "A100-40GB": 312,           # Ampere in-depth blog Table 1: "Peak BF16 Tensor Core 312 TFLOPS | 624 TFLOPS" (sparse)
    "A100-40GB-PCIe": 312,
    "A100-80GB": 312,           # A100 datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*"
    "A100-80GB-PCIe": 312,
    "H100-80GB-SXM": 989.4,     # Hopper whitepaper Table 1: "989.4 TFLOPS | 1978.9 TFLOPS (sparsity)"; not 1,979
    "H100-80GB-PCIe": 756,      # Hopper whitepaper Table 1: "756 TFLOPS | 1513 TFLOPS"
    "H100-NVL": 1671 / 2,       # H100 page: "1,671 teraFLOPS" with sparsity
    "H200": 1979 / 2,           # H200 page: "1,979 teraFLOPS" with sparsity
    "B200": 4500 / 2,           # Blackwell datasheet, HGX B200: "4.5 PFLOPS", every tensor figure with sparsity
    "GB200": 5000 / 2,          # the same datasheet, GB200 NVL72: "5 PFLOPS"
    "L4": 242 / 2,              # L4: "242 FP16/BF16 ... TFLOPS with sparsity"
    "L40S": 362.05,             # L40S: "362.05 | 733*" (NVIDIA's aiconfigurator: 362.05 dense)
    "A10G": 125,                # A10 datasheet: "125 TFLOPS (250 with sparsity)"; no A10G datasheet exists
    "T4": 65,                   # T4: "Mixed-precision FP16/FP32 peak: 65 TFLOPS" (no BF16, no sparsity on Turing)
    "RTX-4090": 165.2,          # Ada whitepaper: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4"
    "RTX-5090": 209.5,          # RTX Blackwell whitepaper Table 3: BF16 209.5 dense
    "MI300X": 1307.4,           # AMD: "1307.4 TFLOPS peak theoretical Bfloat16"; 2,614.9 with structured sparsity
    "MI325X": 1307.4,
}
# GPUs whose vendor publishes no dense BF16 figure: their dense FP4, from the sparse "AI TOPS" ÷ 2.
DENSE_FP4_ONLY = {"DGX-Spark": 1000 / 2, "RTX-PRO-6000": 4000 / 2}


def test_the_dense_peaks_are_the_documents_not_the_sparsity_figures():
    assert set(DENSE_BF16) | set(DENSE_FP4_ONLY) == {gpu["id"] for gpu in gpu_entries()}
    for gpu_id, tflops in DENSE_BF16.items():
        rates = gpu_specs(gpu_id).rates
        assert (rates.get("bf16") or rates["fp16"]).value == pytest.approx(tflops * 1e12), gpu_id
    for gpu_id, tflops in DENSE_FP4_ONLY.items():
        specs = gpu_specs(gpu_id)
        assert set(specs.rates) == {"fp4"} and specs.rates["fp4"].value == pytest.approx(tflops * 1e12)


def test_bandwidths_are_the_named_skus():
    # H100 SXM 3.35 TB/s (not 3.072), H100 PCIe 2.0 TB/s, B200 (HGX) 7.7 TB/s, GB200 8 TB/s, GB10 273 GB/s.
    assert [gpu_specs(g).memory_bandwidth.value for g in ("H100-80GB-SXM", "H100-80GB-PCIe", "B200", "GB200",
                                                          "DGX-Spark")] == [3.35e12, 2.0e12, 7.7e12, 8e12, 273e9]


def test_a_missing_rate_is_bounded_by_the_next_narrower_one_and_says_so():
    spark = gpu_specs("DGX-Spark")
    peak = spark.peak("bf16")
    assert peak.flops == 500e12 and "publishes no dense BF16 rate" in peak.words and "loose" in peak.words
    assert gpu_specs("H100-SXM").peak("bf16").flops == 989.4e12  # an alias finds the catalog entry


def test_the_dtypes_each_gpu_computes_in():
    assert not gpu_specs("A100-80GB").has_fp8() and gpu_specs("L4").has_fp8() and gpu_specs("MI300X").has_fp8()
    assert gpu_specs("B200").has_fp4() and gpu_specs("DGX-Spark").has_fp4() and not gpu_specs("H200").has_fp4()


def test_a_bridged_pair_all_reduces_over_the_bridge_and_a_larger_group_over_pcie():
    h100_pcie = gpu_specs("H100-80GB-PCIe")
    # "NVLINK: 600GB/秒 PCIe Gen5: 128GB/秒": both printed bidirectionally, so 300 and 64 GB/s each way.
    assert (h100_pcie.link(2).value, h100_pcie.link(4).value) == (300e9, 64e9)
    assert gpu_specs("H100-80GB-SXM").link(2).value == gpu_specs("H100-80GB-SXM").link(8).value == 450e9
