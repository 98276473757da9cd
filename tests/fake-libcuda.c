/* A stand-in libcuda.so.1 for tests/cli-profile-gpu-images.sh: a driver that reports one device,
 * so that `profile --gpu` runs its command (a script that writes what the collector would) on a
 * machine without a GPU. Only what rooftime's driver check calls. */
__attribute__((visibility("default"))) int cuInit(unsigned flags)
{
    (void)flags;
    return 0;
}

__attribute__((visibility("default"))) int cuDeviceGetCount(int *count)
{
    *count = 1;
    return 0;
}
