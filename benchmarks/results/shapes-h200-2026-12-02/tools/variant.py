import pathlib, sys
root = pathlib.Path(sys.argv[1]) / "twobody"; v = sys.argv[2]
def edit(rel, old, new):
    p = root / rel; s = p.read_text(); assert s.count(old) == 1, (rel, old); p.write_text(s.replace(old, new))
if v == "nowait":   # warp 0 waits at its first end_columns like the others
    edit("output/per_point.cuh", "    if (zeroing() && threadIdx.x < 32) { storage.zeroed.wait_in_warp(waited, zeroed_token); }\n", "")
elif v == "nobarrier":  # timing only: the output zeroed by a memset, no grid barrier
    edit("output/per_point.cuh", "zeroes_in_kernel = RowThreads * PointsPerThread <= 128;", "zeroes_in_kernel = false;")
elif v == "lastwarp":  # the arrival's atomic from the block's last thread; that warp takes the early wait
    edit("detail/split_grid_barrier.cuh", "if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {\n    unsigned const blocks", "if (threadIdx.x == blockDim.x - 1) {\n    unsigned const blocks")
    edit("detail/split_grid_barrier.cuh", "t.pending = threadIdx.x == 0;", "t.pending = threadIdx.x == blockDim.x - 1;")
    edit("output/per_point.cuh", "if (zeroing() && threadIdx.x < 32) {", "if (zeroing() && threadIdx.x >= blockDim.x - 32) {")
else:
    assert v == "base"
