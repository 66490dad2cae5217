#pragma once
// Options declared and read in one statement: for each option a strategy writes its declaration
// and where its resolved value goes in the strategy's own options struct, once. specs() are the
// declarations the registry checks --option against and --list-strategies prints; read() fills the
// struct from the resolved values. A key is written once, so an option cannot be declared and
// never read, nor read without being declared.
//
//   planner::OptionBindings<MarsOptions> b;
//   b.integer("generations", &MarsOptions::generations, "40", "outer GA generations", {1, 100000});
//   b.choice("designs", &MarsOptions::designs, {{"configure", DesignChoice::configure},
//            {"fixed", DesignChoice::fixed}}, "configure", "...");
//   info.options = b.specs();            // registration
//   const MarsOptions o = b.read(in.resolved);  // planning

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/planner/strategy_options.hpp"

namespace partsim::planner {

/// One resolved option, as a setter reads it.
struct OptionValue {
  const StrategyOptions& all;
  const std::string& key;
  const std::string& text() const { return all.text(key); }
  long long integer() const { return all.integer(key); }
  double number() const { return all.number(key); }
  bool flag() const { return all.flag(key); }
  std::vector<std::string> words(const std::vector<std::string>& every) const { return all.words(key, every); }
};

template <class Options>
class OptionBindings {
 public:
  using Setter = std::function<void(Options&, const OptionValue&)>;

  /// Any option: its declaration and what its value does to the struct (a parse, two fields, ...).
  OptionBindings& add(OptionSpec spec, Setter set) {
    bindings_.push_back({std::move(spec), std::move(set)});
    return *this;
  }

  /// A whole number in `range` into an integer field.
  template <class Int>
    requires std::is_integral_v<Int>
  OptionBindings& integer(std::string key, Int Options::*field, std::string default_value, std::string description,
                          OptionRange range) {
    return add({std::move(key), OptionType::integer, std::move(default_value), std::move(description), {}, range},
               [field](Options& o, const OptionValue& v) { o.*field = static_cast<Int>(v.integer()); });
  }

  /// A number in `range` into a double field.
  OptionBindings& number(std::string key, double Options::*field, std::string default_value, std::string description,
                         OptionRange range) {
    return add({std::move(key), OptionType::number, std::move(default_value), std::move(description), {}, range},
               [field](Options& o, const OptionValue& v) { o.*field = v.number(); });
  }

  /// true | false into a bool field.
  OptionBindings& flag(std::string key, bool Options::*field, std::string default_value, std::string description) {
    return add({std::move(key), OptionType::boolean, std::move(default_value), std::move(description), {}, {}},
               [field](Options& o, const OptionValue& v) { o.*field = v.flag(); });
  }

  /// One of the words of `values` into a field of their type (an enum, usually).
  template <class T>
  OptionBindings& choice(std::string key, T Options::*field, std::vector<std::pair<std::string, T>> values,
                         std::string default_value, std::string description) {
    std::vector<std::string> words;
    for (const auto& [word, value] : values) words.push_back(word);
    return add({std::move(key), OptionType::choice, std::move(default_value), std::move(description), std::move(words), {}},
               [field, values = std::move(values)](Options& o, const OptionValue& v) {
                 for (const auto& [word, value] : values)
                   if (word == v.text()) o.*field = value;
               });
  }

  /// Any text into a string field ("" = not given).
  OptionBindings& text(std::string key, std::string Options::*field, std::string default_value, std::string description) {
    return add({std::move(key), OptionType::text, std::move(default_value), std::move(description), {}, {}},
               [field](Options& o, const OptionValue& v) { o.*field = v.text(); });
  }

  /// The declarations, in the order bound (StrategyInfo::options).
  std::vector<OptionSpec> specs() const {
    std::vector<OptionSpec> out;
    for (const auto& b : bindings_) out.push_back(b.spec);
    return out;
  }

  /// `options` with every bound option's resolved value applied, in the order bound.
  Options read(const StrategyOptions& resolved, Options options = {}) const {
    for (const auto& b : bindings_) b.set(options, OptionValue{resolved, b.spec.key});
    return options;
  }

 private:
  struct Binding {
    OptionSpec spec;
    Setter set;
  };
  std::vector<Binding> bindings_;
};

}  // namespace partsim::planner
