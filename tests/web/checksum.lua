-- checksum.lua — checksum(t): one number from the bits of every float of t, in order, for the scripts that
-- tests/web/test_node.sh runs under ./attn and the WebAssembly build and compares (gemm_bits.lua,
-- libm_bits.lua): equal checksums, equal bits.
return function(t)
    local acc = 0
    for _, v in ipairs(t:contiguous():view(-1):tolist()) do
        acc = (acc * 31 + string.unpack("<I4", string.pack("<f", v))) % 4294967291
    end
    return acc
end
