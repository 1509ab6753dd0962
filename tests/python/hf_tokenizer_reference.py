#!/usr/bin/env python3
"""Hugging Face `tokenizers` as the reference for Strata's tokenizers (core/tokenizer/).

For each tokenizer in ../shared/data, builds the Hugging Face tokenizer the way transformers
does, encodes a few hundred real lines (../shared/data/corpora) and hard Unicode cases without
special tokens, and writes OUTPUT_FOLDER/<name>/reference.json:
  {"tokenizers": version, "texts": [...],
   "references": {reference: {"file": ..., "ids": [[...], ...], "lossless": [bool, ...]}}}
where "lossless" says whether the reference's own decode gives the text back (only then is a
decode round trip expected of Strata). The tokenizer.json files the references were built
from are saved next to it (HF's exact definition), for Strata to load too.

  gpt2         vocab.json + merges.txt through transformers' GPT2Tokenizer
  llama3       Meta's tiktoken tokenizer.model through transformers' TikTokenConverter, with
               Meta's 256 special tokens (ids 128000+)
  stories260K  OUTPUT_FOLDER/stories260K/tokenizer.json, the file Strata's llama2.c import
               writes (the caller writes it first), loaded by HF tokenizers; and, as a second
               reference, SentencePiece itself on tok512.model (the same vocabulary; HF cannot
               convert a .model without protobuf)

Usage: hf_tokenizer_reference.py OUTPUT_FOLDER NAME...   (NAME: gpt2, llama3, stories260K)
"""

import base64
import json
import os
import sys
import unicodedata

import tokenizers

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")
SHARED = os.environ.get("STRATA_SHARED_DATA_DIR", SHARED)


def shared(relative):
    path = os.path.join(SHARED, relative)
    if not os.path.exists(path):
        sys.exit(f"missing test data file: {path}")
    return path


# --------------------------------------------------------------------------------------------
# The texts

def corpus_lines(relative, count):
    """`count` non-empty lines spread evenly over the file, as they are (leading spaces kept)."""
    with open(shared(relative), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    step = max(1, len(lines) // count)
    return lines[::step][:count]


def corpus_chunk(relative, start, length):
    """A multi-line stretch of raw text: newlines, blank lines and indentation included."""
    with open(shared(relative), encoding="utf-8") as f:
        return f.read()[start:start + length]


def nfd(text):
    return unicodedata.normalize("NFD", text)


HARD_CASES = [
    "", " ", "\n", "  ", "\n\n\n",
    # combining marks and NFC / NFD pairs
    "café", nfd("café"), "Zoë Ångström", nfd("Zoë Ångström"), "\u212bngstr\u00f6m",
    "a\u0300\u0301\u0302\u0303\u0304 stacked marks", "\u1100\u1161\u11a8 jamo vs \uac01",
    "Ελληνικά: καλημέρα", nfd("Ελληνικά: ἀρχή"), "Tiếng Việt có dấu", nfd("Tiếng Việt có dấu"),
    # emoji: ZWJ sequences, skin tones, flags, variation selectors
    "👩‍👩‍👧‍👦 family", "🏳️‍🌈 flag", "👍🏽👍🏿", "🇩🇪🇯🇵🇺🇸", "❤️ vs ❤", "🧑🏽‍💻 codes", "😀😃😄😁",
    # CJK and other scripts
    "日本語のテキスト、漢字とかな。", "中文分词测试：你好，世界！", "한국어 텍스트입니다", "ภาษาไทยไม่มีช่องว่าง",
    "हिन्दी में लिखा पाठ", "Русский текст, ёлка.",
    # right to left, bidi controls
    "שלום עולם", "مرحبا بالعالم", "abc \u202eevil override\u202c def", "\u200fRLM\u200eLRM",
    # control characters and unusual line breaks
    "nul\x00inside", "\x01\x02\x03", "\x1b[31mred\x1b[0m", "tab\there\tand\tthere", "a\rb\r\nc",
    "\x0b\x0c form feed", "NEL\u0085here", "line\u2028para\u2029end",
    # whitespace runs
    " " * 50, "\t\t\t  \n\n\n   x", "word" + " " * 17 + "word", "trailing   ", "   leading",
    "\u00a0nbsp\u3000ideographic\u2003em space", "\ufeffBOM first", "\n \n \n \n", "\t" * 12,
    # digit runs
    "1234567890123456789", "3.14159265358979323846", "2024-12-31 23:59:59", "1,000,000.00",
    "١٢٣٤٥ Arabic-Indic", "０１２３ fullwidth", "x² + y³ = z⁴", "Ⅻ roman",
    # contractions and apostrophes
    "don't can't I'm you're they've we'll he'd it's", "DON'T I'M YOU'RE WE'LL",
    "it’s curly", "'s 's' ''", "rock 'n' roll", "O'Neill's", "'tis",
    # valid UTF-8 that looks broken
    "\ufffd replacement", "\uffff\ufffe nonchars", "\ufdd0\ufdef", "\ue000 private use",
    "\ud7ff\ue000", "\U0010ffff last code point", "\U0001d49c\U0001d4b7 math script",
    "ï»¿ mojibake Ã© Ã¼", "zero\u200bwidth\u200cjoin\u200d", "soft\u00adhyphen", "\u0000",
    # special tokens written in the text
    "<|endoftext|>", "before<|endoftext|>after", "<|begin_of_text|>hi<|eot_id|>",
    "<s> </s> <unk>", "<|reserved_special_token_7|>",
    # repetition (BPE tie-breaking) and code
    "a" * 300, "ab" * 150, "!!!" * 40, "ーーーー" * 10, "аааа" * 20,
    "def f(x):\n    return x**2  # square\n", "https://example.com/path?q=1&r=2#frag",
    "user@example.org", "C++ std::vector<int32_t> v{1, 2};", "$$\\frac{a}{b}$$",
]


def texts():
    return (corpus_lines("corpora/tinyshakespeare.txt", 150)
            + corpus_lines("corpora/wikitext2-valid.txt", 150)
            + [corpus_chunk("corpora/tinyshakespeare.txt", 5000, 1500),
               corpus_chunk("corpora/wikitext2-valid.txt", 20000, 1500)]
            + HARD_CASES)


# --------------------------------------------------------------------------------------------
# The references


def hf_reference(tokenizer, file, lines):
    encodings = tokenizer.encode_batch(lines, add_special_tokens=False)
    ids = [e.ids for e in encodings]
    lossless = [tokenizer.decode(i, skip_special_tokens=False) == text
                for i, text in zip(ids, lines)]
    return {"file": file, "ids": ids, "lossless": lossless}


def gpt2(folder, lines):
    from transformers import GPT2Tokenizer
    backend = GPT2Tokenizer.from_pretrained(shared("tokenizers/gpt2")).backend_tokenizer
    file = os.path.join(folder, "tokenizer.json")
    backend.save(file)
    return {"gpt2": hf_reference(tokenizers.Tokenizer.from_file(file), file, lines)}


def llama3_special_tokens():
    # Meta's llama3 tokenizer.py: ten named ones, then reserved ones up to 256 in all.
    named = ["<|begin_of_text|>", "<|end_of_text|>"] + [
        f"<|reserved_special_token_{i}|>" for i in range(4)] + [
        "<|start_header_id|>", "<|end_header_id|>", "<|reserved_special_token_4|>", "<|eot_id|>"]
    return named + [f"<|reserved_special_token_{i}|>" for i in range(5, 256 - 5)]


def llama3(folder, lines):
    from transformers.convert_slow_tokenizer import TikTokenConverter

    class RankFileConverter(TikTokenConverter):
        # tiktoken's load_tiktoken_bpe, without needing the tiktoken package.
        @staticmethod
        def load_tiktoken_bpe(path):
            with open(path, "rb") as f:
                return {base64.b64decode(token): int(rank)
                        for token, rank in (line.split() for line in f.read().splitlines() if line)}

    converter = RankFileConverter(vocab_file=shared("tokenizers/llama3/tokenizer.model"),
                                  extra_special_tokens=llama3_special_tokens())
    file = os.path.join(folder, "tokenizer.json")
    converter.converted().save(file)
    return {"llama3": hf_reference(tokenizers.Tokenizer.from_file(file), file, lines)}


def stories260k(folder, lines):
    file = os.path.join(folder, "tokenizer.json")
    if not os.path.exists(file):
        sys.exit(f"{file}: the caller must write Strata's llama2.c import of tok512.bin here first")
    out = {"stories260K": hf_reference(tokenizers.Tokenizer.from_file(file), file, lines)}
    try:
        import sentencepiece
    except ImportError:
        return out
    model = shared("models/stories260K/tok512.model")
    sp = sentencepiece.SentencePieceProcessor(model_file=model)
    ids = [sp.encode(text) for text in lines]
    out["sentencepiece"] = {"file": model, "ids": ids,
                            "lossless": [sp.decode(i) == text for i, text in zip(ids, lines)]}
    return out


BUILDERS = {"gpt2": gpt2, "llama3": llama3, "stories260K": stories260k}


def main():
    if len(sys.argv) < 3 or any(name not in BUILDERS for name in sys.argv[2:]):
        sys.exit(f"usage: hf_tokenizer_reference.py OUTPUT_FOLDER NAME... (NAME: {', '.join(BUILDERS)})")
    root = sys.argv[1]
    lines = texts()
    for name in sys.argv[2:]:
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        result = {"tokenizers": tokenizers.__version__, "texts": lines,
                  "references": BUILDERS[name](folder, lines)}
        with open(os.path.join(folder, "reference.json"), "w", encoding="utf-8") as out:
            json.dump(result, out, ensure_ascii=False)


if __name__ == "__main__":
    main()
