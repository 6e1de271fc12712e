// The options of jemalloc, the allocator the executables link with (docs/design.md): jemalloc
// reads this string when it starts, before main(); MALLOC_CONF in the environment still overrides
// it. "thp:always" asks the kernel for transparent huge pages on all of jemalloc's memory (with
// MADV_HUGEPAGE, so it takes effect when /sys/kernel/mm/transparent_hugepage/enabled says
// `madvise` or `always`): a replay touches hundreds of MiB of fresh memory, and every 4 KiB page
// of it is a page fault otherwise. A global because that is jemalloc's documented interface; it
// is constant, read once by the allocator, and holds no state of ours.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
