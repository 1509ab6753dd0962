#include "tokenizer/bpe_tables_json.h"

#include <utility>
#include <vector>

namespace strata::tokenizer {

namespace {

/** As Json::parse does on text that is not JSON: throws the parse error (false for others). */
bool throwParseError(const nlohmann::detail::exception& e) {
  if (const auto* parse = dynamic_cast<const Json::parse_error*>(&e)) throw *parse;
  return false;
}

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
      MergeEntry& line = m_out.merges.emplace_back();
      line.kind = MergeEntry::Kind::Line;
      line.left = std::move(value);
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
    return throwParseError(e);
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
      m_out.merges.emplace_back().kind = array ? MergeEntry::Kind::Pair : MergeEntry::Kind::Other;
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

/**
 * The tree of a whole tokenizer.json except the values of the keys "vocab" and "merges" of the
 * root's objects (model.vocab and model.merges), which are skipped as they are read. Built here
 * rather than by nlohmann's parser with a callback: that parser, each time an object ends, scans
 * every element of the array holding it for a discarded one, so an array of n objects costs
 * n²/2 steps. GGUF tokenizers can hold ~100,000 added tokens, each an object: 8.7 s to read a
 * 20 MB file that a plain parse reads in 0.3 s.
 */
class OutlineSax : public nlohmann::json_sax<Json> {
 public:
  explicit OutlineSax(Json& root) : m_root(root) {}

  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(std::move(v)); }
  bool binary(binary_t& v) override { return value(Json::binary(std::move(v))); }
  bool key(string_t& k) override {
    if (m_skipped > 0) return true;
    // Depth as the callback parser counted it: the root object's keys are at 1, model's at 2.
    if (m_open.size() == 2 && (k == "vocab" || k == "merges")) {
      m_skipNext = true;
      return true;
    }
    m_slot = &(*m_open.back())[k];  // a repeated key keeps its last value, as Json::parse does
    return true;
  }
  bool start_object(std::size_t) override { return open(Json::object()); }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return throwParseError(e);
  }

 private:
  /** Where a value read now goes: nullptr while inside, or at, a skipped value. */
  Json* place(Json&& v) {
    if (m_skipped > 0) return nullptr;
    if (m_skipNext) {
      m_skipNext = false;
      return nullptr;
    }
    if (m_open.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    if (m_open.back()->is_array()) {
      m_open.back()->push_back(std::move(v));
      return &m_open.back()->back();
    }
    *m_slot = std::move(v);
    return m_slot;
  }
  bool value(Json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(Json&& container) {
    if (m_skipped > 0 || m_skipNext) {
      m_skipNext = false;
      ++m_skipped;
      return true;
    }
    m_open.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    if (m_skipped > 0) {
      --m_skipped;
      return true;
    }
    m_open.pop_back();
    return true;
  }

  Json& m_root;
  std::vector<Json*> m_open;  // the containers being filled, the root's first
  Json* m_slot = nullptr;     // the value of the object key read last
  int64_t m_skipped = 0;      // depth inside a skipped container
  bool m_skipNext = false;    // the next value belongs to a skipped key
};

/**
 * One pass over the text for both handlers: every event goes to the tables' handler, then to the
 * outline's. The tables take (move) only strings inside model.vocab and model.merges, which the
 * outline skips without reading; the outline takes the others, of which the tables only note
 * the type. So no string is read after it was moved.
 */
class TokenizerJsonSax : public nlohmann::json_sax<Json> {
 public:
  TokenizerJsonSax(BpeTablesSax& tables, OutlineSax& outline)
      : m_tables(tables), m_outline(outline) {}

  bool null() override { return m_tables.null() && m_outline.null(); }
  bool boolean(bool v) override { return m_tables.boolean(v) && m_outline.boolean(v); }
  bool number_integer(number_integer_t v) override {
    return m_tables.number_integer(v) && m_outline.number_integer(v);
  }
  bool number_unsigned(number_unsigned_t v) override {
    return m_tables.number_unsigned(v) && m_outline.number_unsigned(v);
  }
  bool number_float(number_float_t v, const string_t& s) override {
    return m_tables.number_float(v, s) && m_outline.number_float(v, s);
  }
  bool string(string_t& v) override { return m_tables.string(v) && m_outline.string(v); }
  bool binary(binary_t& v) override { return m_tables.binary(v) && m_outline.binary(v); }
  bool key(string_t& k) override { return m_tables.key(k) && m_outline.key(k); }
  bool start_object(std::size_t n) override {
    return m_tables.start_object(n) && m_outline.start_object(n);
  }
  bool start_array(std::size_t n) override {
    return m_tables.start_array(n) && m_outline.start_array(n);
  }
  bool end_object() override { return m_tables.end_object() && m_outline.end_object(); }
  bool end_array() override { return m_tables.end_array() && m_outline.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return throwParseError(e);
  }

 private:
  BpeTablesSax& m_tables;
  OutlineSax& m_outline;
};

}  // namespace

Json parseTokenizerOutline(const std::string& text) {
  Json root;
  OutlineSax sax(root);
  Json::sax_parse(text, &sax);
  return root;
}

TokenizerJsonText readTokenizerJson(const std::string& text) {
  TokenizerJsonText out;
  BpeTablesSax tables(out.tables);
  OutlineSax outline(out.outline);
  TokenizerJsonSax both(tables, outline);
  Json::sax_parse(text, &both);
  return out;
}

}  // namespace strata::tokenizer
