// Must NOT compile: join records are copied as bytes, so a record with a non-trivial copy
// (here a std::string member) is rejected by a static_assert with a clear message.
#include <twobody/cpu/backend.cuh>
#include <twobody/join.cuh>

#include <string>

struct bad_record {
  std::uint32_t i, j;
  std::string label;
};

struct make_bad {
  bad_record operator()(twobody::point<float, 1> const&, twobody::point<float, 1> const&, twobody::size_type i,
                        twobody::size_type j) const
  {
    return {std::uint32_t(i), std::uint32_t(j), "near"};
  }
};

int main()
{
  float x[2] = {0.f, 1.f};
  auto pts   = twobody::make_points(2, x);
  auto r     = twobody::cpu::join(twobody::self_pairs(pts), twobody::emit_if<bad_record>(twobody::within_eps_fn<float>{4.f}, make_bad{}));
  auto g     = twobody::join(twobody::self_pairs(pts), twobody::emit_if<bad_record>(twobody::within_eps_fn<float>{4.f}, make_bad{}));
  return static_cast<int>(r.size() + g.size());
}
