# The two histogram variants of this folder's skip-outside/ and no-atomics/ runs: edits to a copy of
# include/ (python3 variants.py COPY_OF_INCLUDE skipoutside|noatomic), compiled into bench_frames with
# that copy ahead of the tree's include/ (-I COPY_OF_INCLUDE -I include).
import pathlib, sys
root, v = pathlib.Path(sys.argv[1]), sys.argv[2]
def edit(old, new):
    p = root / 'twobody/output/privatized_histogram.cuh'; s = p.read_text(); assert s.count(old) == 1, old; p.write_text(s.replace(old, new))
add_old = '''    // Byte offsets keep the address one IMAD (slot * stride + mine) in the hot loop.
    atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (slot * stride_bytes + mine_bytes)), c);
  }'''
flush_old = '''    if (p.zero_counts) { storage.zeroed.wait_once(); }  // (the constructor's and each flush's barriers order it)
    __syncthreads();'''
mem_old = '''  unsigned long long pending = 0;
  // Spill mode'''
if v == 'noatomic':  # timing only (wrong counts): no shared atomic, the slot's address folded into a register
    edit(add_old, '''    sink += static_cast<unsigned>(slot * stride_bytes + mine_bytes) + static_cast<unsigned>(c);
  }''')
    edit(mem_old, mem_old.replace('= 0;\n', '= 0;\n  unsigned sink = 0;\n', 1))
    edit(flush_old, flush_old.replace('    __syncthreads();', '    if (sink == 0x9e3779b9u) { atomicAdd(p.counts, Count(1)); }\n    __syncthreads();'))
else:  # outside values counted in a register, added to the lane's copy of the outside slot at each flush
    assert v == 'skipoutside'
    edit(add_old, '''    if (slot == p.bins.size()) {
      outside += c;
    } else {
      atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (slot * stride_bytes + mine_bytes)), c);
    }
  }''')
    edit(mem_old, mem_old.replace('= 0;\n', '= 0;\n  Counter outside{};\n', 1))
    edit(flush_old, flush_old.replace('    __syncthreads();', '''    if (Mode == window_mode::none && outside != Counter{}) {
      atomicAdd(reinterpret_cast<Counter*>(reinterpret_cast<char*>(h) + (p.bins.size() * stride_bytes + mine_bytes)), outside);
      outside = Counter{};
    }
    __syncthreads();'''))
