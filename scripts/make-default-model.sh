#!/bin/sh
# Builds Strata's default backbone (resources/models/default) with `strata-cli pretrain`:
# a small byte-level Llama trained on Python 3.11 standard-library sources, a corpus every
# Debian 12 machine has (libpython3.11-stdlib). Usage:
#   scripts/make-default-model.sh [STRATA_CLI] [WORK_DIR]
# then copy config.json, model.safetensors, tokenizer.json, tokenizer_config.json, README.md
# and training.json from WORK_DIR/model into resources/models/default/.
set -eu
CLI=${1:-build/app/cli/strata-cli}
WORK=${2:-/tmp/default-model}
mkdir -p "$WORK"

# The corpus: the first 300 .py files (byte order of their paths) of the standard library,
# tests, IDLE, lib2to3 and third-party packages left out; one JSONL document per file.
find /usr/lib/python3.11 -name '*.py' \
    -not -path '*/test/*' -not -path '*/tests/*' -not -path '*/idlelib/*' \
    -not -path '*/lib2to3/*' -not -path '*/site-packages/*' -not -path '*/dist-packages/*' \
  | LC_ALL=C sort | head -n 300 > "$WORK/files.txt"
python3 -c '
import json, sys
with open(sys.argv[1]) as names, open(sys.argv[2], "w") as out:
    for name in names:
        name = name.strip()
        with open(name, encoding="utf-8", errors="replace") as f:
            out.write(json.dumps({"text": f.read(), "file": name}) + "\n")
' "$WORK/files.txt" "$WORK/corpus.jsonl"

# Fixed settings: ~0.84 M parameters (3.3 MB of float32 weights); sized for ~15 minutes on
# two shared CPU cores. --resume continues an interrupted run.
RESUME=""
[ -d "$WORK/model/checkpoints" ] && RESUME="--resume"
"$CLI" pretrain --corpus "$WORK/corpus.jsonl" --out "$WORK/model" $RESUME \
  --tokenizer byte --dim 128 --layers 4 --heads 4 --kv-heads 4 --mlp 352 \
  --seq-len 128 --batch 8 --steps 450 --lr 2e-3 --warmup 30 --seed 1 \
  --log-every 10 --eval-every 50 --checkpoint-every 50 --threads 2
