// c = a + 1 on a 16x16 bfloat16 tile: the minimal kernel showing that pto-isa's CPU backend computes
// "bfloat16_t" as _Float16 when the toolchain has no C++23 <stdfloat> (include/pto/common/type.hpp).
// For a = 0 it stores 0x3C00 (FP16 1.0) where bfloat16 1.0 is 0x3F80.
#include <cstdint>
#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#define __aicore__
#endif

#include <pto/pto-inst.hpp>
#include "tensor.h"
using namespace pto;

static_assert(sizeof(bfloat16_t) == 2, "bfloat16_t is a 16-bit type");

extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  using TileT = Tile<TileType::Vec, bfloat16_t, 16, 16, BLayout::RowMajor, -1, -1>;
  using GlobalT = GlobalTensor<bfloat16_t, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>, Layout::ND>;
  __gm__ ChipTensor* a_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* c_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  GlobalT a(reinterpret_cast<__gm__ bfloat16_t*>(a_tensor->buffer.addr) + a_tensor->start_offset);
  GlobalT c(reinterpret_cast<__gm__ bfloat16_t*>(c_tensor->buffer.addr) + c_tensor->start_offset);
  TileT t(16, 16);
  TASSIGN(t, 0x0);
  TLOAD(t, a);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADDS(t, t, 1.0f);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(c, t);
  pipe_barrier(PIPE_ALL);
}
