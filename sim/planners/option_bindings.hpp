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
//
// A field may be a member of Options or of a base of it: a family extends its model's options
// struct with what only its plan reads (struct DeepaOptions : ModelOptions { bool overlap; }).
// nest() binds a member struct with another struct's bindings (the mcm solver's options).

#include <cmath>
#include <concepts>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/planners/strategy_options.hpp"

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
  /// A field of Options itself or of one of its bases.
  template <class Owner>
  static constexpr bool kField = std::is_base_of_v<Owner, Options>;

 public:
  using Setter = std::function<void(Options&, const OptionValue&)>;

  /// Any option: its declaration and what its value does to the struct (a parse, two fields, ...).
  OptionBindings& add(OptionSpec spec, Setter set) {
    bindings_.push_back({std::move(spec), std::move(set)});
    return *this;
  }

  /// A whole number in `range` into an integer field.
  template <class Int, class Owner>
    requires std::is_integral_v<Int> && kField<Owner>
  OptionBindings& integer(std::string key, Int Owner::*field, std::string default_value, std::string description,
                          OptionRange range) {
    return add({std::move(key), OptionType::integer, std::move(default_value), std::move(description), {}, range},
               [field](Options& o, const OptionValue& v) { o.*field = static_cast<Int>(v.integer()); });
  }

  /// A whole number in `range`, or one of `words` standing for a value ("all" = -1), into an integer field.
  template <class Int, class Owner>
    requires std::is_integral_v<Int> && kField<Owner>
  OptionBindings& integer(std::string key, Int Owner::*field, std::string default_value, std::string description,
                          OptionRange range, std::vector<std::pair<std::string, Int>> words) {
    std::vector<std::string> names;
    for (const auto& [word, value] : words) names.push_back(word);
    return add({std::move(key), OptionType::integer, std::move(default_value), std::move(description), std::move(names), range},
               [field, words = std::move(words)](Options& o, const OptionValue& v) {
                 for (const auto& [word, value] : words)
                   if (word == v.text()) {
                     o.*field = value;
                     return;
                   }
                 o.*field = static_cast<Int>(v.integer());
               });
  }

  /// A number in `range` into a double field.
  template <class Owner>
    requires kField<Owner>
  OptionBindings& number(std::string key, double Owner::*field, std::string default_value, std::string description,
                         OptionRange range) {
    return add({std::move(key), OptionType::number, std::move(default_value), std::move(description), {}, range},
               [field](Options& o, const OptionValue& v) { o.*field = v.number(); });
  }

  /// true | false into a bool field.
  template <class Owner>
    requires kField<Owner>
  OptionBindings& flag(std::string key, bool Owner::*field, std::string default_value, std::string description) {
    return add({std::move(key), OptionType::boolean, std::move(default_value), std::move(description), {}, {}},
               [field](Options& o, const OptionValue& v) { o.*field = v.flag(); });
  }

  /// One of the words of `values` into a field of their type (an enum, usually).
  template <class T, class Owner>
    requires kField<Owner>
  OptionBindings& choice(std::string key, T Owner::*field, std::vector<std::pair<std::string, T>> values,
                         std::string default_value, std::string description) {
    std::vector<std::string> words;
    for (const auto& [word, value] : values) words.push_back(word);
    return add({std::move(key), OptionType::choice, std::move(default_value), std::move(description), std::move(words), {}},
               [field, values = std::move(values)](Options& o, const OptionValue& v) {
                 for (const auto& [word, value] : values)
                   if (word == v.text()) o.*field = value;
               });
  }

  /// One of `words` into a field, by the family's own `parse` (T parse(const std::string&)).
  template <class T, class Owner, class Parse>
    requires kField<Owner> && std::convertible_to<std::invoke_result_t<Parse, const std::string&>, T>
  OptionBindings& choice(std::string key, T Owner::*field, std::vector<std::string> words, Parse parse,
                         std::string default_value, std::string description) {
    return add({std::move(key), OptionType::choice, std::move(default_value), std::move(description), std::move(words), {}},
               [field, parse](Options& o, const OptionValue& v) { o.*field = parse(v.text()); });
  }

  /// Any text into a string field ("" = not given).
  template <class Owner>
    requires kField<Owner>
  OptionBindings& text(std::string key, std::string Owner::*field, std::string default_value, std::string description) {
    return add({std::move(key), OptionType::text, std::move(default_value), std::move(description), {}, {}},
               [field](Options& o, const OptionValue& v) { o.*field = v.text(); });
  }

  /// Every binding of `inner`, in its order, applied to the member struct `field` (options that
  /// several families' structs share, e.g. the mcm solver's).
  template <class Inner, class Owner>
    requires kField<Owner>
  OptionBindings& nest(Inner Owner::*field, const OptionBindings<Inner>& inner) {
    for (const auto& b : inner.bindings_)
      add(b.spec, [field, set = b.set](Options& o, const OptionValue& v) { set(o.*field, v); });
    return *this;
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
  template <class>
  friend class OptionBindings;  // nest() reads another struct's bindings
  struct Binding {
    OptionSpec spec;
    Setter set;
  };
  std::vector<Binding> bindings_;
};

}  // namespace partsim::planner
