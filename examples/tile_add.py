# pypto.program: TileAdd
import pypto.language as pl


@pl.program
class TileAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_add(
        self,
        input_a: pl.Tensor[[128, 128], pl.FP32],
        input_b: pl.Tensor[[128, 128], pl.FP32],
        output: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        tile_a: pl.Tile[[128, 128], pl.FP32] = pl.load(input_a, [0, 0], [128, 128])
        tile_b: pl.Tile[[128, 128], pl.FP32] = pl.load(input_b, [0, 0], [128, 128])
        tile_c: pl.Tile[[128, 128], pl.FP32] = pl.add(tile_a, tile_b)
        result: pl.Tensor[[128, 128], pl.FP32] = pl.store(tile_c, [0, 0], output)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[128, 128], pl.FP32],
        b: pl.Tensor[[128, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        out = self.tile_add(a, b, out)
        return out
