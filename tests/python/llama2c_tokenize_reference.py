#!/usr/bin/env python3
"""Reference ids for tests/core/tokenizer/tokenizer_llama2c_test.cpp.

A direct, deliberately naive transcription of encode() in karpathy/llama2.c run.c (rescan all
pairs after every merge, strict '>' on scores so the leftmost best pair wins, dummy " " prefix,
UTF-8 code points looked up whole or spelled as <0xNN> byte tokens at id byte + 3). It shares no
code with the C++ implementation, which uses a pair table and a priority queue instead.

Usage: python3 tests/python/llama2c_tokenize_reference.py [tokenizer.bin]
(default: ../shared/data/models/stories260K/tok512.bin). Prints one C++ initializer per case;
paste them into kReferenceCases in the test when the cases change.
"""
import os
import struct
import sys

CASES = [
    "Once upon a time, there was a little girl named Lily.",
    "She liked to play outside in the sun.",
    "Tom and Sue went to the park. They saw a big dog!",
    "caf\u00e9 na\u00efve \u2014 \u4f60\u597d",
    "  two leading spaces and\ttab\nnewline",
]


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (max_len,) = struct.unpack_from("<i", data, 0)
    offset, pieces, scores = 4, [], []
    while offset < len(data):
        score, length = struct.unpack_from("<fi", data, offset)
        offset += 8
        pieces.append(data[offset:offset + length])
        scores.append(score)
        offset += length
    return pieces, scores


def encode(text, pieces, scores, bos=False):
    lookup = {}
    for i, p in enumerate(pieces):
        lookup.setdefault(p, i)
    raw = text.encode("utf-8")
    tokens = [1] if bos else []
    if raw:
        tokens.append(lookup[b" "])
    i = 0
    while i < len(raw):
        # one code point: a lead byte plus its continuation bytes (at most 4 bytes in all)
        j = i + 1
        while j < len(raw) and (raw[j] & 0xC0) == 0x80 and j - i < 4:
            j += 1
        symbol = raw[i:j]
        if symbol in lookup:
            tokens.append(lookup[symbol])
        else:
            tokens.extend(b + 3 for b in symbol)
        i = j
    while True:
        best_score, best_id, best_idx = -1e10, -1, -1
        for k in range(len(tokens) - 1):
            merged = pieces[tokens[k]] + pieces[tokens[k + 1]]
            idx = lookup.get(merged, -1)
            if idx != -1 and scores[idx] > best_score:
                best_score, best_id, best_idx = scores[idx], idx, k
        if best_idx == -1:
            break
        tokens[best_idx:best_idx + 2] = [best_id]
    return tokens


def cpp_string(text):
    out, previous_escaped = "", False
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if 32 <= byte < 127 and ch not in '\\"':
            if previous_escaped and ch in "0123456789abcdefABCDEF":
                out += '" "'  # a hex escape would swallow this digit
            out += ch
            previous_escaped = False
        else:
            out += "\\x%02X" % byte
            previous_escaped = True
    return '"' + out + '"'


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "..", "shared", "data", "models", "stories260K",
                           "tok512.bin")
    pieces, scores = load(sys.argv[1] if len(sys.argv) > 1 else default)
    for text in CASES:
        ids = encode(text, pieces, scores)
        print("    {%s,\n     {%s}}," % (cpp_string(text), ", ".join(map(str, ids))))


if __name__ == "__main__":
    main()
