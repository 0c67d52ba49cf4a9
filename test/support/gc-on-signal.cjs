// Preloaded into server processes spawned by the memory test (node --expose-gc --require ...):
// SIGUSR2 runs a full garbage collection, so resident memory is measured without garbage that
// V8 simply has not collected yet (external buffers are collected lazily, up to ~64 MB behind).
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') global.gc();
});
