// mrc-ev: expand EV profiles from YAML (see harness/cli/ev_expand.hpp for the format).
#include <iostream>
#include <string>

#include "harness/cli/ev_expand.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::cerr << "usage: mrc-ev <profile.yaml>...\n"
                 "Prints one line per EV: <index> <port> ev=<hex> wire=<hex> [da=<IPv6> srh=<IPv6>]\n"
                 "Exit 0 ok, 2 invalid profile or YAML.\n";
    return argc < 2 ? 2 : 0;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    if (argc > 2) std::cout << "# " << argv[i] << '\n';
    const int r = mrc::cli::run_ev_expand(argv[i], std::cout, std::cerr);
    if (r > rc) rc = r;
  }
  return rc;
}
