"""Formatting of quantities, used by the CLI, the API derivations and the card filters.

Binary units (KiB, MiB, GiB) divide by powers of 1024; GB divides by 10**9. Max concurrency
is printed as vLLM prints it: ``f"{conc:.2f}x"``.
"""

KIB = 1024
MIB = 1024**2
GIB = 1024**3


def commas(n) -> str:
    """24096 -> '24,096'; 2.5 -> '2.5'."""
    if isinstance(n, float) and not n.is_integer():
        return f"{n:,}"
    return f"{int(n):,}"


def _trim(value: float, decimals: int) -> str:
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def kib(n) -> str:
    """147456 -> '144 KiB'; 70272 -> '68.625 KiB' (exact to the byte, no trailing zeros)."""
    return f"{_trim(n / KIB, 3)} KiB"


def mib(n) -> str:
    return f"{n / MIB:,.2f} MiB"


def gib(n) -> str:
    """16e9 -> '14.90 GiB' (two decimals, as vLLM's logs round GiB)."""
    return f"{n / GIB:,.2f} GiB"


def gb(n) -> str:
    """10e9 -> '10 GB'; 3.5e9 -> '3.5 GB'."""
    return f"{_trim(n / 1e9, 2)} GB"


def size(n) -> str:
    """A byte count in the largest binary unit that keeps it >= 1."""
    if n >= GIB:
        return gib(n)
    if n >= MIB:
        return mib(n)
    if n >= KIB:
        return kib(n)
    return f"{commas(n)} B"


def conc(x) -> str:
    """Max concurrency as vLLM logs it: 2.94140625 -> '2.94x'."""
    return f"{x:.2f}x"


def tokens(n) -> str:
    return f"{commas(n)} tokens"


def millions(n, decimals: int = 2) -> str:
    """1146784 -> '1.15 M'."""
    return f"{n / 1e6:.{decimals}f} M"


def fixed(x, decimals: int = 2) -> str:
    """12.743 -> '12.74' with decimals=2; thousands separated."""
    return f"{x:,.{decimals}f}"


def percent(x, decimals: int = 1) -> str:
    """0.995 -> '99.5%', 0.9 -> '90%' (no trailing zeros)."""
    return f"{_trim(x * 100, decimals)}%"


# The names cards use as Jinja filters; AUTHORING.md documents each one.
def billions(n) -> str:
    """30532122624 -> '30.5 billion' (parameter counts in prose)."""
    return f"{_trim(n / 1e9, 1)} billion"


def duration(seconds) -> str:
    """A time in the unit that reads best: 0.010553 -> '10.55 ms', 1.5 -> '1.50 s', 8.7e-6 -> '8.70 µs'."""
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


def flops(n) -> str:
    """FLOP/s in TFLOP/s, as spec sheets print them: 989.4e12 -> '989.4 TFLOP/s'."""
    return f"{_trim(n / 1e12, 2)} TFLOP/s"


def bandwidth(n) -> str:
    """Bytes per second in decimal units, as spec sheets print them: 3.35e12 -> '3.35 TB/s', 3e11 -> '300 GB/s'."""
    return f"{_trim(n / 1e12, 3)} TB/s" if n >= 1e12 else f"{_trim(n / 1e9, 2)} GB/s"


FILTERS = {
    "commas": commas,
    "kib": kib,
    "mib": mib,
    "gib": gib,
    "gb": gb,
    "size": size,
    "x": conc,
    "tokens": tokens,
    "millions": millions,
    "billions": billions,
    "fixed": fixed,
    "percent": percent,
    "duration": duration,
    "flops": flops,
    "bandwidth": bandwidth,
}
