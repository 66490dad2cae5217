// platform_key_reference: regenerates the key tables of configs/README.md from spec_fields.hpp.
//   platform_key_reference FILE          rewrite FILE's marked tables in place
//   platform_key_reference --check FILE  exit 1 (and leave FILE) when its tables are stale
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "sim/common/error.hpp"
#include "topology/key_reference.hpp"

int main(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  const bool check = first == "--check";
  if (argc != (check ? 3 : 2)) {
    std::cerr << "usage: platform_key_reference [--check] FILE   (FILE: configs/README.md)\n";
    return 2;
  }
  const std::string file = argv[check ? 2 : 1];
  try {
    std::ifstream in(file);
    if (!in) throw partsim::InputError(file + ": cannot open file");
    std::stringstream text;
    text << in.rdbuf();
    const std::string updated = partsim::topology::update_key_reference(text.str());
    if (updated == text.str()) return 0;
    if (check) {
      std::cerr << file << ": key tables are stale; run platform_key_reference " << file << "\n";
      return 1;
    }
    std::ofstream out(file, std::ios::trunc);
    out << updated;
    if (!out) throw partsim::InputError(file + ": cannot write file");
    std::cout << file << ": key tables updated\n";
  } catch (const partsim::Error& e) {
    std::cerr << file << ": " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}
