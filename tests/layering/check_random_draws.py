#!/usr/bin/env python3
"""Checks that every random draw of Strata's C++ goes through model/random (seeded_generator.h).

torch's random functions accept only a generator made for their output's device; a CPU
generator meeting a CUDA tensor fails on a GPU alone, deep inside torch. So in core/ and app/:

* only core/model/random/seeded_generator.cpp makes generators (createCPUGenerator,
  getNewGenerator, make_generator);
* only core/model/random/random_draws.cpp calls torch's random tensor functions (rand, randn,
  randint, randperm, bernoulli, multinomial, normal, poisson and their _like forms), which it
  does after checking the generator against the output's device;
* in-place random methods (normal_, uniform_, bernoulli_, ...) only in the weight initialisers
  listed in IN_PLACE, which draw from the default generator of the parameter's own device.

The runtime half is tests/core/recipes/foreign_generator_training_test.cpp: every recipe trains
and evaluates with generators that claim another device. Usage: check_random_draws.py
SOURCE_DIR; prints each violation as file:line and exits 1 if any.
"""
import re
import sys
from pathlib import Path

FACTORY = "core/model/random/seeded_generator.cpp"
DRAWS = "core/model/random/random_draws.cpp"
IN_PLACE = {
    "core/model/diffusion/dcdm_transformer.cpp": "weight initialisation, default generator",
    "core/model/trainable/trainable_llama.cpp": "weight initialisation, default generator",
}
MAKES_GENERATOR = re.compile(r"\b(createCPUGenerator|getNewGenerator|make_generator)\b")
TENSOR_DRAW = re.compile(
    r"\b(?:torch|at)\s*::\s*(rand|randn|randint|randperm|bernoulli|multinomial|normal|poisson|"
    r"rand_like|randn_like|randint_like|binomial|_standard_gamma)\s*\(")
IN_PLACE_DRAW = re.compile(
    r"\.\s*(normal_|uniform_|bernoulli_|random_|exponential_|geometric_|cauchy_|log_normal_)\s*\(")
SOURCES = ("*.h", "*.cpp", "*.cu", "*.cuh")


def code_lines(path):
    """The file's lines with comments blanked (line numbers kept)."""
    text = path.read_text(errors="replace")
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return [re.sub(r"//.*", "", line) for line in text.splitlines()]


def main(source):
    problems = []
    for folder in ("core", "app"):
        for pattern in SOURCES:
            for path in sorted((source / folder).rglob(pattern)):
                name = path.relative_to(source).as_posix()
                for number, line in enumerate(code_lines(path), 1):
                    where = f"{name}:{number}"
                    if MAKES_GENERATOR.search(line) and name != FACTORY:
                        problems.append(f"{where}: makes a generator; use seededGenerator "
                                        "(model/random/seeded_generator.h)")
                    match = TENSOR_DRAW.search(line)
                    if match and name != DRAWS:
                        problems.append(f"{where}: calls {match.group(1)} directly; use "
                                        "model/random/random_draws.h")
                    match = IN_PLACE_DRAW.search(line)
                    if match and name not in IN_PLACE:
                        problems.append(f"{where}: draws in place ({match.group(1)}); use "
                                        "model/random/random_draws.h")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
