#include "harness/verdict/field_class.hpp"

namespace mrc::harness {

std::string_view to_string(FieldClass c) {
  switch (c) {
    case FieldClass::kExact: return "exact";
    case FieldClass::kChoice: return "choice";
    case FieldClass::kBounded: return "bounded";
  }
  return "exact";
}

}  // namespace mrc::harness
