// Writes every algorithm of the registry, native included, as "collective name fallback" lines
// (the chain of fallbacks, comma-separated, "-" when it has none) to argv[1]: the list the plain C programs of mpi.pmpi
// force one by one, so that they need no ragged header and a new algorithm is tested without editing them.
#include <fstream>
#include <iostream>
#include <string>

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
    // The whole chain, comma-separated: a fallback whose own restriction fails runs its own.
    std::string chain;
    const ragged::Algorithm* at = a;
    for (int hops = 0; hops < 8 && !at->restrictions.fallback.empty(); ++hops) {
      chain += (chain.empty() ? "" : ",") + at->restrictions.fallback;
      at = &ragged::Registry::instance().find(a->collective, at->restrictions.fallback);
    }
    out << ragged::name_of(a->collective) << ' ' << a->name << ' ' << (chain.empty() ? "-" : chain) << '\n';
  }
  return out ? 0 : 1;
}
