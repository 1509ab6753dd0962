#include "tokenizer/tokenizer_json_pipeline.h"

#include <stdexcept>
#include <vector>

namespace strata::tokenizer {

namespace {

std::string typeOf(const JsonFields& fields, const Json& value, const std::string& path) {
  return fields.string(value, "type", path);
}

FormatError unsupported(const JsonFields& fields, const std::string& what, const std::string& type,
                        const std::string& path) {
  return fields.error(JsonFields::child(path, "type"),
                      "unsupported " + what + " type '" + type + "'");
}

// {"Regex": "..."} or {"String": "..."}: the pattern of Split, Replace (HF SplitPattern).
SplitPattern parsePattern(const JsonFields& fields, const Json& object, const std::string& path) {
  const std::string key = JsonFields::child(path, "pattern");
  const Json& pattern = fields.require(object, "pattern", path);
  if (const Json* literal = fields.find(pattern, "String", key))
    return SplitPattern::literal(fields.stringValue(*literal, JsonFields::child(key, "String")));
  if (const Json* regex = fields.find(pattern, "Regex", key)) {
    const std::string regexKey = JsonFields::child(key, "Regex");
    try {
      return SplitPattern::regex(fields.stringValue(*regex, regexKey));
    } catch (const std::invalid_argument& e) {
      throw fields.error(regexKey, e.what());
    }
  }
  throw fields.error(key, "expected {\"String\": ...} or {\"Regex\": ...}");
}

SplitBehavior parseBehavior(const JsonFields& fields, const Json& object, const std::string& path) {
  const std::string name = fields.string(object, "behavior", path);
  if (name == "Removed") return SplitBehavior::Removed;
  if (name == "Isolated") return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (name == "Contiguous") return SplitBehavior::Contiguous;
  throw fields.error(JsonFields::child(path, "behavior"), "unknown split behavior '" + name + "'");
}

// Newer files say prepend_scheme; older ones the boolean add_prefix_space (true = always).
PrependScheme parsePrependScheme(const JsonFields& fields, const Json& object,
                                 const std::string& path) {
  if (const auto scheme = fields.optionalString(object, "prepend_scheme", path)) {
    if (*scheme == "always") return PrependScheme::Always;
    if (*scheme == "first") return PrependScheme::First;
    if (*scheme == "never") return PrependScheme::Never;
    throw fields.error(JsonFields::child(path, "prepend_scheme"),
                       "unknown scheme '" + *scheme + "'");
  }
  return fields.flag(object, "add_prefix_space", path, true) ? PrependScheme::Always
                                                             : PrependScheme::Never;
}

template <typename Step, typename Parse>
std::vector<std::unique_ptr<Step>> parseList(const JsonFields& fields, const Json& object,
                                             const std::string& key, const std::string& path,
                                             Parse parse) {
  const Json& list = fields.require(object, key, path);
  const std::string listPath = JsonFields::child(path, key);
  if (!list.is_array()) throw fields.error(listPath, "expected an array");
  std::vector<std::unique_ptr<Step>> steps;
  for (size_t i = 0; i < list.size(); ++i)
    if (auto step = parse(fields, list[i], JsonFields::element(listPath, i)))
      steps.push_back(std::move(step));
  return steps;
}

}  // namespace

std::unique_ptr<Normalizer> parseNormalizer(const JsonFields& fields, const Json& value,
                                            const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string type = typeOf(fields, value, path);
  using Form = UnicodeNormalizer::Form;
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(Form::NFC);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(Form::NFD);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(Form::NFKC);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(Form::NFKD);
  if (type == "Lowercase") return std::make_unique<LowercaseNormalizer>();
  if (type == "Prepend")
    return std::make_unique<PrependNormalizer>(fields.string(value, "prepend", path));
  if (type == "Replace")
    return std::make_unique<ReplaceNormalizer>(parsePattern(fields, value, path),
                                               fields.string(value, "content", path));
  if (type == "Strip")
    return std::make_unique<StripNormalizer>(fields.flag(value, "strip_left", path, true),
                                             fields.flag(value, "strip_right", path, true));
  if (type == "Sequence")
    return std::make_unique<SequenceNormalizer>(
        parseList<Normalizer>(fields, value, "normalizers", path, parseNormalizer));
  throw unsupported(fields, "normalizer", type, path);
}

std::unique_ptr<PreTokenizer> parsePreTokenizer(const JsonFields& fields, const Json& value,
                                                const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string type = typeOf(fields, value, path);
  if (type == "ByteLevel")
    return std::make_unique<ByteLevelPreTokenizer>(
        fields.flag(value, "add_prefix_space", path, true),
        fields.flag(value, "use_regex", path, true));
  if (type == "Split")
    return std::make_unique<SplitPreTokenizer>(parsePattern(fields, value, path),
                                               parseBehavior(fields, value, path),
                                               fields.flag(value, "invert", path, false));
  if (type == "Metaspace") {
    const std::string replacement = fields.string(value, "replacement", path);
    return std::make_unique<MetaspacePreTokenizer>(replacement,
                                                   parsePrependScheme(fields, value, path),
                                                   fields.flag(value, "split", path, true));
  }
  // The next three are splits with fixed patterns (HF pre_tokenizers/digits.rs, whitespace.rs).
  if (type == "Digits") {
    const bool individual = fields.flag(value, "individual_digits", path, false);
    return std::make_unique<SplitPreTokenizer>(
        SplitPattern::regex(R"(\p{N})"),
        individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false);
  }
  if (type == "Whitespace")
    return std::make_unique<SplitPreTokenizer>(SplitPattern::regex(R"(\w+|[^\w\s]+)"),
                                               SplitBehavior::Removed, true);
  if (type == "WhitespaceSplit")
    return std::make_unique<SplitPreTokenizer>(SplitPattern::regex(R"(\s+)"),
                                               SplitBehavior::Removed, false);
  if (type == "Sequence")
    return std::make_unique<SequencePreTokenizer>(
        parseList<PreTokenizer>(fields, value, "pretokenizers", path, parsePreTokenizer));
  throw unsupported(fields, "pre_tokenizer", type, path);
}

std::unique_ptr<Decoder> parseDecoder(const JsonFields& fields, const Json& value,
                                      const std::string& path) {
  if (value.is_null()) return nullptr;
  const std::string type = typeOf(fields, value, path);
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace")
    return std::make_unique<MetaspaceDecoder>(fields.string(value, "replacement", path),
                                              parsePrependScheme(fields, value, path));
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    const int64_t start = fields.integer(value, "start", path);
    const int64_t stop = fields.integer(value, "stop", path);
    if (start < 0 || stop < 0) throw fields.error(JsonFields::child(path, "start"), "must be >= 0");
    return std::make_unique<StripDecoder>(fields.string(value, "content", path),
                                          static_cast<size_t>(start), static_cast<size_t>(stop));
  }
  if (type == "Replace")
    return std::make_unique<ReplaceDecoder>(parsePattern(fields, value, path),
                                            fields.string(value, "content", path));
  if (type == "Sequence")
    return std::make_unique<SequenceDecoder>(
        parseList<Decoder>(fields, value, "decoders", path, parseDecoder));
  throw unsupported(fields, "decoder", type, path);
}

}  // namespace strata::tokenizer
