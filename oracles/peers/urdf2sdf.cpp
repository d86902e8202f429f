// libsdformat's own URDF -> SDFormat conversion, the one behind `gz sdf -p FILE.urdf`:
// `sdf::Root::Load` reads the URDF through libsdformat's URDF parser (urdfdom) and holds the
// converted SDFormat; its text is written to stdout. The loader's errors go to stderr, and the
// exit status is 1 when there were any (the text is still written when there is one).
//
//     g++ -std=c++17 -O1 urdf2sdf.cpp -o urdf2sdf $(pkg-config --cflags --libs sdformat12)
//     urdf2sdf ROBOT.urdf > ROBOT.sdf
#include <sdf/sdf.hh>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: urdf2sdf FILE.urdf\n";
    return 2;
  }
  sdf::Root root;
  const sdf::Errors errors = root.Load(argv[1]);
  for (const auto& error : errors) {
    std::cerr << error.Message() << "\n";
  }
  if (root.Element() != nullptr && root.Model() != nullptr) {
    std::cout << root.Element()->ToString("") << std::endl;
  }
  return errors.empty() ? 0 : 1;
}
