from quizapp.calc import fmt


def test_binary_units():
    assert fmt.kib(147_456) == "144 KiB"
    assert fmt.kib(70_272) == "68.625 KiB"
    assert fmt.mib(39_518_208) == "37.69 MiB"
    assert fmt.gib(3_553_099_776) == "3.31 GiB"


def test_decimal_units_and_counts():
    assert fmt.gb(10e9) == "10 GB"
    assert fmt.gb(28e9) == "28 GB"
    assert fmt.commas(1_708_119) == "1,708,119"
    assert fmt.tokens(24_096) == "24,096 tokens"
    assert fmt.millions(1_670_272) == "1.67 M"


def test_concurrency_rounds_as_vllm_prints_it():
    assert fmt.conc(2.94140625) == "2.94x"
    assert fmt.conc(1506 / 40) == "37.65x"
    assert fmt.conc(0.125) == "0.12x"  # %.2f: round half to even on the binary value


def test_size_picks_the_unit():
    assert fmt.size(512) == "512 B"
    assert fmt.size(2_359_296) == "2.25 MiB"
    assert fmt.size(16e9) == "14.90 GiB"


def test_time_and_rate_units_read_as_spec_sheets_print_them():
    assert fmt.duration(0.010553) == "10.55 ms" and fmt.duration(1.5) == "1.50 s" and fmt.duration(8.7e-6) == "8.70 µs"
    assert fmt.flops(989.4e12) == "989.4 TFLOP/s" and fmt.flops(2.25e15) == "2,250 TFLOP/s"
    assert fmt.bandwidth(3.35e12) == "3.35 TB/s" and fmt.bandwidth(273e9) == "273 GB/s"
