#pragma once
// Typed exceptions thrown by partsim's libraries. Only the programs' main() catch them.
//
// Contract: every error a user can cause (bad YAML, bad plan, bad workload, bad command-line value)
// is an InputError and makes the program exit with code 2 after printing what() on one line.
// Anything else (an internal inconsistency, a SimGrid failure) is an Error with exit code 1.

#include <stdexcept>
#include <string>

namespace partsim {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const noexcept { return 1; }
};

/// The user's input is wrong; the message says what and where, on one line: line breaks and other
/// control characters that came with the input (a quoted value echoed back, a file name) are
/// written as escapes ("\n", "\x1B").
class InputError : public Error {
 public:
  explicit InputError(const std::string& what);
  explicit InputError(const char* what) : InputError(std::string(what)) {}
  int exit_code() const noexcept override { return 2; }
};

/// An input error at a place in a file: "file:line:column: key.path: message".
/// line and column are 1-based; 0 means unknown (then they are left out of what()).
class ParseError : public InputError {
 public:
  ParseError(std::string file, int line, int column, std::string key_path, std::string message);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }
  const std::string& key_path() const noexcept { return key_path_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string key_path_;
  std::string message_;
};

/// A planner refused up front because the work its options call for passes a limit (deepa's
/// xfer_limit): the same planner with a narrower option set may plan, which a caller holding it to
/// a time budget (the search's seeds) tries next.
class WorkLimitError : public InputError {
 public:
  using InputError::InputError;
};

/// A name looked up in a registry (strategy, workload, preset, collective) was not found.
/// what() lists the valid names.
class UnknownNameError : public InputError {
 public:
  UnknownNameError(const std::string& what_kind, const std::string& name, const std::string& valid_names);
};

}  // namespace partsim
