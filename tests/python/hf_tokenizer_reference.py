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
               writes (the caller writes it first), loaded by HF tokenizers; as a second
               reference, SentencePiece itself on tok512.model (the same vocabulary); as a third,
               the tokenizer.json transformers converts tok512.model into (AutoTokenizer, which
               needs the protobuf package), saved as OUTPUT_FOLDER/stories260K/converted/
  spm_trained  tiny SentencePiece models trained here (SentencePieceTrainer, byte fallback) on
               tinyshakespeare, written to OUTPUT_FOLDER/spm_trained/<model>/tokenizer.model:
               llama2_bpe (Llama-2 / Mistral settings), gemma_bpe (Gemma's: no dummy prefix,
               user-defined pieces), nfkc_unigram (unigram, NFKC, extra whitespace removed).
               References: SentencePiece's own ids ("<model>") and transformers' conversion
               ("<model>.transformers", its tokenizer.json next to the model), when it converts

Usage: hf_tokenizer_reference.py OUTPUT_FOLDER NAME...   (NAME: gpt2, llama3, stories260K,
       spm_trained)
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
        import sentencepiece  # noqa: F401  (its reference below needs it)
    except ImportError:
        return out
    model = shared("models/stories260K/tok512.model")
    out["sentencepiece"] = sentencepiece_reference(model, lines)
    converted = transformers_conversion(model, os.path.join(folder, "converted"), lines)
    if converted:
        out["transformers"] = converted
    return out


def sentencepiece_reference(model, lines):
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=model)
    ids = [sp.encode(text) for text in lines]
    return {"file": model, "ids": ids,
            "lossless": [sp.decode(i) == text for i, text in zip(ids, lines)]}


def transformers_conversion(model, folder, lines):
    """The tokenizer.json transformers builds from a SentencePiece model (AutoTokenizer on a
    folder holding only tokenizer.model), saved in `folder`; None when transformers cannot
    convert it here (no protobuf package), with the reason on stderr."""
    try:
        import google.protobuf  # noqa: F401  (transformers' SentencePieceExtractor needs it)
    except ImportError:
        print("hf_tokenizer_reference: no protobuf package, so no transformers conversion of "
              f"{model}", file=sys.stderr)
        return None
    from transformers import AutoTokenizer
    os.makedirs(folder, exist_ok=True)
    link = os.path.join(folder, "tokenizer.model")
    if not os.path.exists(link):
        os.symlink(os.path.abspath(model), link)
    file = os.path.join(folder, "tokenizer.json")
    AutoTokenizer.from_pretrained(folder).backend_tokenizer.save(file)
    return hf_reference(tokenizers.Tokenizer.from_file(file), file, lines)


# Texts for the trained models besides the usual ones: characters the tiny vocabularies lack
# (byte fallback), space runs, digit runs (split_digits), emoji, user-defined pieces.
TRAINED_MODEL_CASES = [
    "Ünïcödé ünknown çhäracters ßẞ", "zebra-quokka xylophone: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "日本語 and 中文 mixed in",
    "two  spaces,   three,    four", "  leading and trailing  ", "tab\tand\nnewline\n",
    "digits 0123456789 and 3.14159 and 1,000,000", "year 2024, room 101, 007",
    "emoji 🙂🙃 👩‍💻 🇫🇷 ❤️", "<start_of_turn>user\nhi<end_of_turn>", "<s> and </s> spelt out",
    "▁ a literal lower one eighth block ▁▁", "mixed\u00a0nbsp and\u3000ideographic space",
]

# name: SentencePieceTrainer options besides the shared ones.
TRAINED_MODELS = {
    # Llama-2's (and Mistral's) tokenizer.model: BPE, byte fallback, digits split, no
    # normalisation, a dummy prefix, spaces kept as they are.
    "llama2_bpe": dict(model_type="bpe", normalization_rule_name="identity",
                       add_dummy_prefix=True, remove_extra_whitespaces=False,
                       allow_whitespace_only_pieces=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1),
    # Gemma's: no dummy prefix, pad/eos/bos/unk at 0..3, user-defined chat pieces.
    "gemma_bpe": dict(model_type="bpe", normalization_rule_name="identity",
                      add_dummy_prefix=False, remove_extra_whitespaces=False,
                      allow_whitespace_only_pieces=True, pad_id=0, eos_id=1, bos_id=2, unk_id=3,
                      user_defined_symbols=["<start_of_turn>", "<end_of_turn>", "<mask>"]),
    # T5-like: unigram with SentencePiece's default NFKC rule and whitespace clean-up.
    "nfkc_unigram": dict(model_type="unigram", normalization_rule_name="nmt_nfkc",
                         add_dummy_prefix=True, remove_extra_whitespaces=True,
                         unk_id=0, bos_id=1, eos_id=2, pad_id=-1),
}


def spm_trained(folder, lines):
    import sentencepiece
    corpus = os.path.join(folder, "train.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write(corpus_chunk("corpora/tinyshakespeare.txt", 0, 200000))
    out = {}
    for name, options in TRAINED_MODELS.items():
        model_folder = os.path.join(folder, name)
        os.makedirs(model_folder, exist_ok=True)
        prefix = os.path.join(model_folder, "tokenizer")
        sentencepiece.SentencePieceTrainer.train(
            input=corpus, model_prefix=prefix, vocab_size=512, byte_fallback=True,
            split_digits=True, character_coverage=1.0, num_threads=1, minloglevel=2,
            **options)
        os.replace(prefix + ".model", os.path.join(model_folder, "tokenizer.model"))
        model = os.path.join(model_folder, "tokenizer.model")
        out[name] = sentencepiece_reference(model, lines)
        converted = transformers_conversion(model, os.path.join(model_folder, "converted"), lines)
        if converted:
            out[name + ".transformers"] = converted
    return out


BUILDERS = {"gpt2": gpt2, "llama3": llama3, "stories260K": stories260k, "spm_trained": spm_trained}


def main():
    if len(sys.argv) < 3 or any(name not in BUILDERS for name in sys.argv[2:]):
        sys.exit(f"usage: hf_tokenizer_reference.py OUTPUT_FOLDER NAME... (NAME: {', '.join(BUILDERS)})")
    root = sys.argv[1]
    for name in sys.argv[2:]:
        lines = texts() + (TRAINED_MODEL_CASES if name == "spm_trained" else [])
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        result = {"tokenizers": tokenizers.__version__, "texts": lines,
                  "references": BUILDERS[name](folder, lines)}
        with open(os.path.join(folder, "reference.json"), "w", encoding="utf-8") as out:
            json.dump(result, out, ensure_ascii=False)


if __name__ == "__main__":
    main()
