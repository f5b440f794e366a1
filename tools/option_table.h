// A command's options as one table: each row spells an option, names its
// value, says what it does, and applies it. The parser and --help both read
// the table, so an option cannot be accepted without being documented, nor
// documented without being accepted.
//
// Header-only: tests/dwt compiles tools/bench_dwt.cc in without tools/'s
// library.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace mallat::tools {

// One row. `Settings` is what the command's options fill in.
template <typename Settings>
struct Option {
  std::vector<std::string_view> names;  // every spelling; --help shows them all
  std::string_view value;    // the value's name in --help ("W,H"); empty: a flag
  std::string_view help;     // what it does; --help wraps it
  std::string_view example;  // a valid value, for the tests; empty for a flag
  // Applies the option (a flag gets an empty value). A bad value is an
  // invalid_argument whose message names the option.
  Status (*apply)(Settings& settings, const std::string& value);
};

// The parser's own option, which every command has and no table may spell.
inline constexpr std::string_view kHelpNames[] = {"-h", "--help"};
inline constexpr std::string_view kHelpText = "print this help and exit";

// A row without its action: what --help prints and the tests check.
struct OptionText {
  std::vector<std::string_view> names;
  std::string_view value;
  std::string_view help;
  std::string_view example;
};

template <typename Settings>
std::vector<OptionText> option_texts(const std::vector<Option<Settings>>& table) {
  std::vector<OptionText> texts;
  for (const Option<Settings>& row : table) texts.push_back({row.names, row.value, row.help, row.example});
  return texts;
}

enum class Parsed { kRun, kHelp };

// Applies `args` row by row, in order. "-h" or "--help" stops the parse
// (kHelp) wherever it stands, unless it is the value of the option before
// it; an unknown option, a missing value or a bad value is the error.
template <typename Settings>
Result<Parsed> parse_options(const std::vector<Option<Settings>>& table, const std::vector<std::string>& args,
                             Settings& settings) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == kHelpNames[0] || arg == kHelpNames[1]) return Parsed::kHelp;
    const Option<Settings>* row = nullptr;
    for (const Option<Settings>& r : table)
      for (std::string_view name : r.names)
        if (name == arg) row = &r;
    if (!row) return invalid_argument("unknown option '" + arg + "'");
    std::string value;
    if (!row->value.empty()) {
      if (i + 1 >= args.size()) return invalid_argument("option " + arg + " needs a value");
      value = args[++i];
    }
    MALLAT_RETURN_IF_ERROR(row->apply(settings, value));
  }
  return Parsed::kRun;
}

// The option list of --help: per row its spellings and value, then its help
// wrapped from column 18 (on the next line when the spellings reach it);
// "-h, --help" last.
inline std::string options_help(std::vector<OptionText> texts) {
  constexpr size_t kColumn = 18, kWidth = 92;
  texts.push_back({{kHelpNames[0], kHelpNames[1]}, "", kHelpText, ""});
  std::string out;
  for (const OptionText& t : texts) {
    std::string line = "  ";
    for (size_t n = 0; n < t.names.size(); ++n) line.append(n ? ", " : "").append(t.names[n]);
    if (!t.value.empty()) line.append(" ").append(t.value);
    if (line.size() + 2 > kColumn) {
      out += line + "\n";
      line.clear();
    }
    line.resize(kColumn, ' ');
    bool first_word = true;
    for (size_t at = 0; at < t.help.size();) {
      const size_t end = std::min(t.help.find(' ', at), t.help.size());
      const std::string_view word = t.help.substr(at, end - at);
      if (!first_word && line.size() + 1 + word.size() > kWidth) {
        out += line + "\n";
        line.assign(kColumn, ' ');
        first_word = true;
      }
      line.append(first_word ? "" : " ").append(word);
      first_word = false;
      at = end + 1;
    }
    out += line + "\n";
  }
  return out;
}

// The whole of --help: the command's intro, a blank line, the option list.
inline std::string help_text(std::string_view intro, std::vector<OptionText> texts) {
  return std::string(intro).append("\n").append(options_help(std::move(texts)));
}

// Text with the characters Markdown would read as markup escaped (CommonMark
// takes a backslash before any ASCII punctuation), `|` included for tables.
inline std::string markdown_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\`*_<>[]|#").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A spelling or value as code in a Markdown table cell: a `|` escaped, which
// GitHub's tables take inside code too (none holds a backtick).
inline std::string markdown_code(std::string_view text) {
  std::string out = "`";
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out + "`";
}

// The option list as a Markdown table (docs/CLI.md): the rows of --help, in
// its order, "-h, --help" last; spellings and values as code.
inline std::string options_markdown(std::vector<OptionText> texts) {
  texts.push_back({{kHelpNames[0], kHelpNames[1]}, "", kHelpText, ""});
  std::string out = "| option | value | meaning |\n| --- | --- | --- |\n";
  for (const OptionText& t : texts) {
    out += "| ";
    for (size_t n = 0; n < t.names.size(); ++n) out.append(n ? ", " : "").append(markdown_code(t.names[n]));
    out.append(" | ");
    if (!t.value.empty()) out.append(markdown_code(t.value));
    out.append(" | ").append(markdown_escaped(t.help));
    out += " |\n";
  }
  return out;
}

// A command with a table, seen without its settings type: for the tests.
struct CommandOptions {
  std::string command;  // the words after `mallat`: "encode", "bench dwt"
  std::vector<OptionText> options;
  // Parses `args` into fresh settings and does nothing else.
  std::function<Status(const std::vector<std::string>& args)> parse;
};

template <typename Settings>
CommandOptions command_options(std::string command, const std::vector<Option<Settings>>& table,
                               Settings fresh = {}) {
  return {std::move(command), option_texts(table), [&table, fresh](const std::vector<std::string>& args) {
            Settings settings = fresh;
            Result<Parsed> parsed = parse_options(table, args, settings);
            return parsed.ok() ? Status::Ok() : parsed.status();
          }};
}

// Spellings that more than one row (or a row and the parser's -h/--help)
// claim, or a row twice: the tests require none.
inline std::vector<std::string> duplicate_names(const std::vector<OptionText>& texts) {
  std::vector<std::string_view> seen(std::begin(kHelpNames), std::end(kHelpNames));
  std::vector<std::string> duplicates;
  for (const OptionText& t : texts)
    for (std::string_view name : t.names) {
      for (std::string_view s : seen)
        if (s == name) duplicates.emplace_back(name);
      seen.push_back(name);
    }
  return duplicates;
}

}  // namespace mallat::tools
