// The commands' option tables (tools/option_table.h): every row spelled
// once, documented in --help, parsing a sample value; an unknown option and
// a missing value are usage errors that name the option. A new row is
// checked by these tests without any change to them.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testdata.h"
#include "tests/tools/cli_run.h"
#include "tools/bench_dwt.h"
#include "tools/commands.h"
#include "tools/option_table.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;
using tools::CommandOptions;
using tools::OptionText;

std::vector<CommandOptions> all_commands() {
  return {tools::encode_options(), tools::decode_options(), tools::transcode_options(), tools::bench_dwt_options()};
}

// Words separated by single spaces: --help wraps the text it is given.
std::string words(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string word, out;
  while (in >> word) out.append(out.empty() ? "" : " ").append(word);
  return out;
}

// How --help starts the row's line: its spellings, then its value.
std::string spelled(const OptionText& row) {
  std::string s = "\n  ";
  for (size_t n = 0; n < row.names.size(); ++n) s.append(n ? ", " : "").append(row.names[n]);
  if (!row.value.empty()) s.append(" ").append(row.value);
  return s;
}

TEST(OptionTable, NoSpellingIsClaimedTwice) {
  for (const CommandOptions& command : all_commands())
    EXPECT_EQ(tools::duplicate_names(command.options), std::vector<std::string>{}) << command.command;
}

TEST(OptionTable, DuplicateCheckFindsRepeatsAndTheHelpOption) {
  const std::vector<OptionText> table = {
      {{"-a", "--all"}, "", "a", ""}, {{"-b"}, "N", "b", "1"}, {{"--all"}, "", "again", ""}, {{"-h"}, "", "h", ""}};
  EXPECT_EQ(tools::duplicate_names(table), (std::vector<std::string>{"--all", "-h"}));
}

TEST(OptionTable, EveryRowIsComplete) {
  for (const CommandOptions& command : all_commands()) {
    EXPECT_FALSE(command.options.empty()) << command.command;
    for (const OptionText& row : command.options) {
      ASSERT_FALSE(row.names.empty()) << command.command;
      for (std::string_view name : row.names)
        EXPECT_TRUE(name.size() >= 2 && name[0] == '-') << command.command << " '" << name << "'";
      EXPECT_FALSE(row.help.empty()) << command.command << " " << row.names[0];
      // A value-taking row needs a sample for EveryOptionParses; a flag has none.
      EXPECT_EQ(row.value.empty(), row.example.empty()) << command.command << " " << row.names[0];
    }
  }
}

TEST(OptionTable, MarkdownTableEscapesMarkup) {
  const std::vector<OptionText> table = {{{"-a", "--all"}, "x|y", "a|b <c> *d* [e]_f_", "x"}};
  const std::string md = tools::options_markdown(table);
  EXPECT_EQ(md,
            "| option | value | meaning |\n| --- | --- | --- |\n"
            "| `-a`, `--all` | `x\\|y` | a\\|b \\<c\\> \\*d\\* \\[e\\]\\_f\\_ |\n"
            "| `-h`, `--help` |  | print this help and exit |\n");
}

TEST(OptionTable, NoSpellingOrValueHoldsABacktick) {
  // options_markdown puts them in code spans, which a backtick would end.
  for (const CommandOptions& command : all_commands())
    for (const OptionText& row : command.options) {
      EXPECT_EQ(row.value.find('`'), std::string_view::npos) << command.command << " " << row.value;
      for (std::string_view name : row.names) EXPECT_EQ(name.find('`'), std::string_view::npos) << name;
    }
}

TEST(OptionTable, EveryOptionIsInHelp) {
  const fs::path dir = testing::make_temp_dir("option-table-help");
  for (const CommandOptions& command : all_commands()) {
    std::string out;
    ASSERT_EQ(testing::run_mallat(command.command + " --help", &out, dir), 0) << command.command << ": " << out;
    const std::string help_words = words(out);
    for (const OptionText& row : command.options) {
      EXPECT_NE(out.find(spelled(row)), std::string::npos) << command.command << ": " << spelled(row) << "\n" << out;
      EXPECT_NE(help_words.find(words(row.help)), std::string::npos) << command.command << ": " << row.help;
    }
    EXPECT_NE(out.find("\n  -h, --help"), std::string::npos) << command.command;
  }
  fs::remove_all(dir);
}

TEST(OptionTable, EveryOptionParses) {
  for (const CommandOptions& command : all_commands())
    for (const OptionText& row : command.options)
      for (std::string_view name : row.names) {
        std::vector<std::string> args = {std::string(name)};
        if (!row.value.empty()) args.emplace_back(row.example);
        const Status s = command.parse(args);
        EXPECT_TRUE(s.ok()) << command.command << " " << name << " " << row.example << ": " << s.to_string();
      }
}

TEST(OptionTable, BadValuesNameTheOption) {
  // In-process: the table's actions report a bad value with the option's
  // name (the value "?" is bad for every option that checks its value).
  for (const CommandOptions& command : all_commands())
    for (const OptionText& row : command.options) {
      if (row.value.empty()) continue;
      const std::string name(row.names[0]);
      const Status s = command.parse({name, "?"});
      if (!s.ok()) {
        EXPECT_NE(s.message().find(name), std::string::npos) << command.command << ": " << s.message();
      }
    }
}

TEST(OptionTable, UnknownOptionAndMissingValueAreUsageErrors) {
  const fs::path dir = testing::make_temp_dir("option-table-usage");
  for (const CommandOptions& command : all_commands()) {
    std::string out;
    for (const char* unknown : {"--no-such-option", "-Z", "stray"}) {
      EXPECT_EQ(testing::run_mallat(command.command + " " + unknown, &out, dir), 2) << command.command << " " << unknown;
      EXPECT_NE(out.find(std::string("unknown option '") + unknown + "'"), std::string::npos) << out;
    }
    for (const OptionText& row : command.options) {
      if (row.value.empty()) continue;
      for (std::string_view name : row.names) {
        const std::string args = command.command + " " + std::string(name);
        EXPECT_EQ(testing::run_mallat(args, &out, dir), 2) << args << ": " << out;
        EXPECT_NE(out.find("option " + std::string(name) + " needs a value"), std::string::npos) << args << ": " << out;
      }
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
