// ragged: error types. Every failure surfaces as an exception derived from
// ragged::Error; nothing is reported through return codes.
#pragma once

#include <stdexcept>
#include <string>

namespace ragged {

/// Base of every exception that ragged throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A caller passed a bad value; `argument()` names the offending argument.
class InvalidArgument : public Error {
 public:
  InvalidArgument(std::string argument, const std::string& why)
      : Error("invalid argument '" + argument + "': " + why), argument_(std::move(argument)) {}
  [[nodiscard]] const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

/// The transport (MPI or the simulator) failed; keeps the transport's code and text.
class TransportError : public Error {
 public:
  TransportError(int code, std::string text, const std::string& context)
      : Error(context + ": transport error " + std::to_string(code) + " (" + text + ")"),
        code_(code),
        text_(std::move(text)) {}
  [[nodiscard]] int code() const noexcept { return code_; }
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  int code_;
  std::string text_;
};

/// A blocking wait ran past the timeout its caller gave.
class TimeoutError : public Error {
 public:
  explicit TimeoutError(const std::string& what) : Error(what) {}
};

/// A configuration file (RAGGED_TUNING_FILE) is malformed: names the file, the line and the field.
class ConfigError : public Error {
 public:
  ConfigError(std::string file, int line, std::string field, const std::string& why)
      : Error(file + ":" + std::to_string(line) + ": field '" + field + "': " + why),
        file_(std::move(file)),
        line_(line),
        field_(std::move(field)) {}
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] int line() const noexcept { return line_; }
  [[nodiscard]] const std::string& field() const noexcept { return field_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
};

/// The environment cannot support ragged (e.g. MPI without MPI_THREAD_MULTIPLE).
class UnsupportedError : public Error {
 public:
  explicit UnsupportedError(const std::string& what) : Error(what) {}
};

}  // namespace ragged
