// Writes every algorithm of the registry, native included, as "collective name fallback" lines
// (fallback "-" when it has none) to argv[1]: the list the plain C programs of mpi.pmpi force one
// by one, so that they need no ragged header and a new algorithm is tested without editing them.
#include <fstream>
#include <iostream>

#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " output.txt\n";
    return 2;
  }
  ragged::mpi::register_native_algorithms();
  std::ofstream out(argv[1]);
  for (const ragged::Algorithm* a : ragged::Registry::instance().all()) {
    const std::string& fallback = a->restrictions.fallback;
    out << ragged::name_of(a->collective) << ' ' << a->name << ' ' << (fallback.empty() ? "-" : fallback) << '\n';
  }
  return out ? 0 : 1;
}
