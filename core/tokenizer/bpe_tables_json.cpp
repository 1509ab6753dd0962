#include "tokenizer/bpe_tables_json.h"

#include <utility>

namespace strata::tokenizer {

namespace {

/** Collects model.vocab and model.merges; ignores everything else. Containers are counted by
 *  `m_level` (the root object is level 1, "model" level 2, vocab and merges level 3). */
class BpeTablesSax : public nlohmann::json_sax<Json> {
 public:
  explicit BpeTablesSax(BpeTablesJson& out) : m_out(out) {}

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("boolean"); }
  bool number_integer(number_integer_t value) override { return integer(value, true); }
  bool number_unsigned(number_unsigned_t value) override {
    return integer(static_cast<int64_t>(value), value <= uint64_t(INT64_MAX));
  }
  bool number_float(number_float_t, const string_t&) override { return scalar("number"); }
  bool binary(binary_t&) override { return scalar("binary"); }
  bool string(string_t& value) override {
    if (m_level == 3 && m_section == Section::Merges) {
      m_out.merges.push_back({MergeEntry::Kind::Line, std::move(value)});
    } else if (m_level == 4 && m_section == Section::Merges) {
      MergeEntry& pair = m_out.merges.back();
      ++m_parts;
      if (m_parts == 1) pair.left = std::move(value);
      if (m_parts == 2) pair.right = std::move(value);
    } else {
      return scalar("string");
    }
    return true;
  }
  bool key(string_t& value) override {
    if (m_level == 1) m_rootKey = value;
    if (m_level == 2 && m_inModel) m_modelKey = value;
    if (m_level == 3 && m_section == Section::Vocab) m_token = std::move(value);
    return true;
  }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // As the tree parse does. (parseTokenizerOutline reads the same text first, so a file that
    // is not JSON is refused there.)
    if (const auto* parse = dynamic_cast<const Json::parse_error*>(&e)) throw *parse;
    return false;
  }

 private:
  enum class Section { None, Vocab, Merges };

  /** A scalar value at the current position. */
  bool scalar(const char* type) {
    if (m_level == 2 && m_inModel) sectionValue(type);
    if (m_level == 3 && m_section == Section::Vocab && !m_out.firstBadId)
      m_out.firstBadId = std::make_pair(m_token, std::string(type));
    if (m_level == 3 && m_section == Section::Merges) m_out.merges.push_back({});  // Other
    if (m_level == 4 && m_section == Section::Merges) pairPart(type);
    return true;
  }
  bool integer(int64_t value, bool fits) {
    if (m_level == 3 && m_section == Section::Vocab) {
      if (fits) {
        m_out.vocab.emplace_back(m_token, value);
        return true;
      }
    }
    return scalar("number");
  }
  /** A value of model.vocab or model.merges that is not the expected container. */
  void sectionValue(const char* type) {
    if (m_modelKey == "vocab") m_out.vocabType = type;
    if (m_modelKey == "merges") m_out.mergesType = type;
  }
  /** A part of a [left, right] pair that is not a string. */
  void pairPart(const char* type) {
    MergeEntry& pair = m_out.merges.back();
    ++m_parts;
    if (pair.badPart < 0 && m_parts <= 2) {
      pair.badPart = m_parts - 1;
      pair.badPartType = type;
    }
  }
  bool open(bool array) {
    // The container opens at the current level; its contents are one level down.
    const char* type = array ? "array" : "object";
    if (m_level == 1 && m_rootKey == "model" && !array) m_inModel = true;
    if (m_level == 2 && m_inModel) {
      sectionValue(type);
      if (m_modelKey == "vocab" && !array) m_section = Section::Vocab;
      if (m_modelKey == "merges" && array) m_section = Section::Merges;
    } else if (m_level == 3 && m_section == Section::Vocab && !m_out.firstBadId) {
      m_out.firstBadId = std::make_pair(m_token, std::string(type));
    } else if (m_level == 3 && m_section == Section::Merges) {
      m_out.merges.push_back({array ? MergeEntry::Kind::Pair : MergeEntry::Kind::Other});
      m_parts = 0;
    } else if (m_level == 4 && m_section == Section::Merges) {
      pairPart(type);
    }
    ++m_level;
    return true;
  }
  bool close() {
    --m_level;
    // A pair closes: anything but two parts is not a pair at all.
    if (m_level == 3 && m_section == Section::Merges &&
        m_out.merges.back().kind == MergeEntry::Kind::Pair && m_parts != 2)
      m_out.merges.back().kind = MergeEntry::Kind::Other;
    if (m_level == 2) m_section = Section::None;
    if (m_level == 1) m_inModel = false;
    return true;
  }

  BpeTablesJson& m_out;
  int m_level = 0;
  bool m_inModel = false;
  Section m_section = Section::None;
  std::string m_rootKey, m_modelKey, m_token;
  int m_parts = 0;  // strings seen in the current [left, right] pair
};

}  // namespace

Json parseTokenizerOutline(const std::string& text) {
  const Json::parser_callback_t keep = [](int depth, Json::parse_event_t event, Json& parsed) {
    if (event != Json::parse_event_t::key || depth != 2 || !parsed.is_string()) return true;
    const auto& key = parsed.get_ref<const std::string&>();
    return key != "vocab" && key != "merges";
  };
  return Json::parse(text, keep);
}

BpeTablesJson readBpeTables(const std::string& text) {
  BpeTablesJson out;
  BpeTablesSax sax(out);
  Json::sax_parse(text, &sax);
  return out;
}

}  // namespace strata::tokenizer
