// The empty kernel of the launch-overhead benchmarks (launched <<<1,1>>>).
extern "C" __global__ void empty_kernel() {}
