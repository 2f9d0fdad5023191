// TSORT32 of one 64-element half row (two 32-element blocks): the minimal kernel showing that pto-isa's
// CPU model (include/pto/cpu/TSort32.hpp) writes block j's (score, index) structs from element 2 * j,
// the FP32 pitch, though an FP16 struct takes 4 elements: block 1 lands on elements 64..191, over the
// second half of block 0, and elements 192..255 are never written. The a2a3 implementation
// (include/pto/npu/a2a3/TSort32.hpp) advances the destination 32 * 4 elements per block.
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

extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  using SrcT = Tile<TileType::Vec, half, 1, 64, BLayout::RowMajor, -1, -1>;
  using IdxT = Tile<TileType::Vec, uint32_t, 1, 64, BLayout::RowMajor, -1, -1>;
  using DstT = Tile<TileType::Vec, half, 1, 256, BLayout::RowMajor, -1, -1>;
  using SrcG = GlobalTensor<half, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>, Layout::ND>;
  using IdxG = GlobalTensor<uint32_t, Shape<1, 1, 1, 1, 64>, Stride<64, 64, 64, 64, 1>, Layout::ND>;
  using DstG = GlobalTensor<half, Shape<1, 1, 1, 1, 256>, Stride<256, 256, 256, 256, 1>, Layout::ND>;
  __gm__ ChipTensor* a_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* i_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  __gm__ ChipTensor* c_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[2]);
  SrcG a(reinterpret_cast<__gm__ half*>(a_tensor->buffer.addr) + a_tensor->start_offset);
  IdxG i(reinterpret_cast<__gm__ uint32_t*>(i_tensor->buffer.addr) + i_tensor->start_offset);
  DstG c(reinterpret_cast<__gm__ half*>(c_tensor->buffer.addr) + c_tensor->start_offset);
  SrcT src(1, 64);
  TASSIGN(src, 0x0);
  IdxT idx(1, 64);
  TASSIGN(idx, 0x100);
  DstT dst(1, 256);
  TASSIGN(dst, 0x200);
  TLOAD(src, a);
  TLOAD(idx, i);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TSORT32(dst, src, idx);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(c, dst);
  pipe_barrier(PIPE_ALL);
}
