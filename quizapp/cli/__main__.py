"""`python -m quizapp.cli`: the `quizapp` command, as the tests and benchmarks start it."""

from . import main

main()
