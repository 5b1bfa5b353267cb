"""The calculator's time bounds beside two peers': llm-analysis (PyPI) and AIConfigurator's
speed-of-light mode, for the same inputs. Not part of the test suite: it installs the peers and
reports.

    .venv/bin/python bench/peers.py                 # writes bench/peers.md
    .venv/bin/python bench/peers.py --output /tmp/peers.md --venvs /tmp/quizapp-peers

Each peer goes in a venv of its own (their pins of numpy and transformers disagree), made with
pip when missing: llm-analysis 0.2.2 (the latest, 2023-11) and aiconfigurator 0.12.0. Both run
offline. llm-analysis is called through its Python API (its CLI cannot take a GPU file), with the
model in its own schema and the GPU built from our catalog's figures, both efficiencies at 1.0;
AIConfigurator through its CLI, ``--database-mode SOL --estimate-mode static``, on its own
NVIDIA-written system files. No peer code is copied here: they are called as programs.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quizapp.calc import calculate, load_model  # noqa: E402
from quizapp.calc.hardware.specs import gpu_specs  # noqa: E402
from quizapp.calc.model.tensors import num_experts  # noqa: E402

PEERS = {"llm-analysis": "llm-analysis==0.2.2", "aiconfigurator": "aiconfigurator==0.12.0"}


@dataclass(frozen=True)
class Case:
    name: str
    model: str  # our catalog id
    aic_model: str  # the id AIConfigurator ships a config for
    gpu: str  # our catalog id
    aic_system: str
    tp: int
    batch: int
    isl: int
    osl: int
    dtype: str = "bfloat16"  # bfloat16 or fp8 (weights and KV)


CASES = (
    Case("70B BF16, H100 SXM, TP 4, batch 1", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B",
         "H100-80GB-SXM", "h100_sxm", 4, 1, 2000, 256),
    Case("70B FP8, H100 SXM, TP 4, batch 64", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B",
         "H100-80GB-SXM", "h100_sxm", 4, 64, 2000, 256, "fp8"),
    Case("70B BF16, H100 PCIe, TP 4, batch 1", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B",
         "H100-80GB-PCIe", "h100_pcie", 4, 1, 2000, 256),
    Case("8B BF16, L4, batch 1", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B", "L4", "l4", 1, 1,
         512, 128),
    Case("8B BF16, A100 80GB, batch 8", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B",
         "A100-80GB", "a100_sxm", 1, 8, 1024, 128),
    Case("Qwen3-30B-A3B BF16, H100 SXM, batch 1", "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B",
         "H100-80GB-SXM", "h100_sxm", 1, 1, 1000, 256),
    Case("Qwen3-30B-A3B BF16, H100 SXM, batch 64", "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B",
         "H100-80GB-SXM", "h100_sxm", 1, 64, 1000, 256),
)


def venv(root: Path, name: str) -> Path:
    """The peer's venv's python, made and filled with pip when missing (at most 10 minutes)."""
    python = root / name / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(root / name)], check=True, timeout=120)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEERS[name]], check=True, timeout=600)
    return python


def ours(case: Case) -> dict:
    result = calculate({"model": case.model, "gpu": case.gpu, "tensor_parallel_size": case.tp,
                        "batch_size": case.batch, "prompt_tokens": case.isl, "output_tokens": case.osl,
                        "weights_dtype": case.dtype, "kv_cache_dtype": "fp8" if case.dtype == "fp8" else "auto"})
    return {"ttft": result["ttft_seconds"], "tpot": result["decode_step_seconds"],
            "all_reduce": result["tp_all_reduce_seconds"], "weights": result["decode_weight_bytes"]}


# llm-analysis, run in its own venv: the model in its schema (ffn × 1.5, since it counts two MLP
# matrices where SwiGLU has three), the GPU from our catalog's figures, both efficiencies 1.0.
LLM_ANALYSIS = """
import json, sys
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import DtypeConfig, GPUConfig, ModelConfig, ParallelismConfig
job = json.loads(sys.stdin.read())
analysis = LLMAnalysis(ModelConfig(**job["model"]), GPUConfig(**job["gpu"]), DtypeConfig(**job["dtype"]),
                       ParallelismConfig(tp_size=job["tp"]), flops_efficiency=1.0, hbm_memory_efficiency=1.0)
out = analysis.inference(batch_size_per_gpu=job["batch"], seq_len=job["isl"], num_tokens_to_generate=job["osl"],
                         kv_cache_dtype_bytes=job["kv_bytes"])
print(json.dumps({k: v for k, v in out.items() if isinstance(v, (int, float))}))
"""


def llm_analysis_job(case: Case) -> dict:
    raw = load_model(case.model).raw
    experts = num_experts(load_model(case.model))
    inner = raw.get("moe_intermediate_size") if experts else raw["intermediate_size"]
    specs = gpu_specs(case.gpu)
    link = specs.link(case.tp).value / 1e9
    fp8 = specs.rates.get("fp8", specs.rates.get("bf16"))
    return {
        "model": {"name": case.model, "num_layers": raw["num_hidden_layers"], "n_head": raw["num_attention_heads"],
                  "hidden_dim": raw["hidden_size"], "vocab_size": raw["vocab_size"],
                  "max_seq_len": raw["max_position_embeddings"], "num_key_value_heads": raw["num_key_value_heads"],
                  "ffn_embed_dim": int(1.5 * inner), "expansion_ratio": 1.5 * inner / raw["hidden_size"],
                  "moe_num_experts": experts or 1, "moe_top_k": raw.get("num_experts_per_tok", 1) if experts else 1},
        "gpu": {"name": case.gpu, "mem_per_GPU_in_GB": 80, "hbm_bandwidth_in_GB_per_sec": specs.memory_bandwidth.value / 1e9,
                "intra_node_bandwidth_in_GB_per_sec": link, "intra_node_min_message_latency": 8e-6,
                "peak_fp16_TFLOPS": specs.rates["bf16"].value / 1e12, "peak_i8_TFLOPS": fp8.value / 1e12},
        "dtype": ({"name": "w8a8e16", "weight_bits": 8, "activation_bits": 8, "embedding_bits": 16}
                  if case.dtype == "fp8" else {"name": "w16a16e16"}),
        "tp": case.tp, "batch": case.batch, "isl": case.isl, "osl": case.osl,
        "kv_bytes": 1 if case.dtype == "fp8" else 2,
    }


def llm_analysis(python: Path, case: Case) -> dict:
    done = subprocess.run([str(python), "-c", LLM_ANALYSIS], input=json.dumps(llm_analysis_job(case)),
                          capture_output=True, text=True, timeout=300)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {"ttft": out["prefill_latency"], "tpot": out["decode_latency"],
            "all_reduce": 2 * out.get("decode_latency_fwd_tp_comm", 0.0),
            "weights": out.get("weight_memory_per_gpu")}


def aiconfigurator(python: Path, case: Case) -> dict:
    quant = "fp8" if case.dtype == "fp8" else "bfloat16"
    command = [str(python.parent / "aiconfigurator"), "cli", "estimate", "--model-path", case.aic_model,
               "--system", case.aic_system, "--backend", "trtllm", "--database-mode", "SOL", "--estimate-mode",
               "static", "--isl", str(case.isl), "--osl", str(case.osl), "--batch-size", str(case.batch),
               "--tp-size", str(case.tp), "--gemm-quant-mode", quant, "--kvcache-quant-mode", quant,
               "--fmha-quant-mode", "bfloat16"]
    if num_experts(load_model(case.model)):
        command += ["--moe-tp-size", str(case.tp), "--moe-ep-size", "1", "--moe-quant-mode", quant]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    found = {key: re.search(rf"{label}:\s+([\d.]+) ms", done.stdout) for key, label in (("ttft", "TTFT"),
                                                                                         ("tpot", "TPOT"))}
    if not all(found.values()):
        lines = [line for line in (done.stdout + done.stderr).splitlines() if "Error" in line or "error" in line]
        return {"error": (lines[-1] if lines else "no TTFT/TPOT in its output")[:200]}
    return {key: float(match[1]) / 1e3 for key, match in found.items()}


WHY = {
    "llm-analysis": ("reads the whole embedding table every decode step and floors each of the 2 all-reduces per layer "
                     "at 8 us (a latency, not a bandwidth), and adds them to the step; charges the KV twice (load and "
                     "store) at the final length; a MoE layer reads every expert's weights at any batch (its memory "
                     "latency uses all of them: 9.6x ours for Qwen3-30B-A3B at batch 1) while its FLOPs use top-k; "
                     "FP8 runs at its INT8 rate; its MLP FLOPs are 16 b s h^2 (a two-matrix 4h MLP) whatever "
                     "ffn_embed_dim says, below SwiGLU's 6 b s h ffn (Llama-3.1-8B: 76% of it), hence its shorter "
                     "compute-bound prefills; in prefill it computes lm_head for the last token only, as we do"),
    "aiconfigurator": ("sums each op's own max(compute, memory) instead of taking the max of the sums (tighter: an op "
                       "cannot lend its idle side to the next), applies the weights' byte width to the GEMM "
                       "activations too, adds the all-reduces to the step and to the prefill (at 64 GB/s each way on "
                       "H100 PCIe: 124 ms of a 2,000-token prompt at TP 4, hence its 2.5x there), reads only the "
                       "batch's embedding rows, no latency floor (SOL); a MoE layer reads min(E, B x k) experts, every "
                       "token a new one (all 128 at batch 64, ours the expected 98.4%)"),
}


def ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:,.2f}" if seconds is not None else "—"


def cell(peer: dict, key: str, base: float) -> str:
    if "error" in peer:
        return "—"
    return f"{ms(peer[key])} ({peer[key] / base:.2f}x)"


def report(rows: list[tuple[Case, dict, dict, dict]], took: float) -> str:
    lines = [
        "# The time bounds beside llm-analysis and AIConfigurator (SOL)", "",
        f"Written by `bench/peers.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} in {took:.0f} s: the "
        "same model, GPU, tensor parallelism, batch, prompt and output lengths through the calculator "
        "(`ttft_seconds`, `decode_step_seconds` at the decode steps' mean context), llm-analysis 0.2.2 (Python API, "
        "efficiencies 1.0, its MLP widened 1.5x to count SwiGLU's three matrices, the GPU from our catalog's figures) "
        "and AIConfigurator 0.12.0 (`--database-mode SOL --estimate-mode static`, its own system files). Times in ms; "
        "a peer's ratio is to ours. All three are meant as bounds: none applies an efficiency factor here.", "",
        "| case | TTFT ours | TTFT llm-analysis | TTFT AIC SOL | TPOT ours | TPOT llm-analysis | TPOT AIC SOL |",
        "|---|---|---|---|---|---|---|",
    ]
    for case, mine, la, aic in rows:
        lines.append(f"| {case.name} | {ms(mine['ttft'])} | {cell(la, 'ttft', mine['ttft'])} | "
                     f"{cell(aic, 'ttft', mine['ttft'])} | {ms(mine['tpot'])} | {cell(la, 'tpot', mine['tpot'])} | "
                     f"{cell(aic, 'tpot', mine['tpot'])} |")
    failures = [(case.name, peer, out["error"]) for case, _, la, aic in rows
                for peer, out in (("llm-analysis", la), ("AIConfigurator", aic)) if "error" in out]
    if failures:
        lines += ["", "Runs that gave no figure:", ""] + [f"- {name}, {peer}: {error}" for name, peer, error in failures]
    lines += ["", "## Where and why they differ", ""]
    lines += [f"- **{peer}** {why}." for peer, why in WHY.items()]
    lines += ["", "The calculator: the weights a step reads on one GPU without the embedding table (only its tokens' "
              "rows are looked up), a MoE layer's experts at the expected share a batch of B tokens touches, "
              "E(1 - (1 - k/E)^B), each sequence's KV once at its context, FLOPs at the dense peak of the dtype each "
              "matmul computes in (FP8 on Hopper), the all-reduce named apart and not added (here: "
              + ", ".join(f"{case.name} {ms(mine['all_reduce'])} ms" for case, mine, _, _ in rows if mine['all_reduce'])
              + " per decode step).", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(ROOT / "bench" / "peers.md"))
    parser.add_argument("--venvs", default="/tmp/quizapp-peers", help="where the peers' venvs are made")
    args = parser.parse_args()
    started = time.monotonic()
    root = Path(args.venvs)
    root.mkdir(parents=True, exist_ok=True)
    pythons = {name: venv(root, name) for name in PEERS}
    rows = []
    for case in CASES:
        print(f"{case.name} ...", file=sys.stderr)
        rows.append((case, ours(case), llm_analysis(pythons["llm-analysis"], case),
                     aiconfigurator(pythons["aiconfigurator"], case)))
    Path(args.output).write_text(report(rows, time.monotonic() - started), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
