// glTF baked in a Web Worker (wasm-bindgen copies this file into the
// package's snippets/ folder; the glue, throng_web.js, sits three folders
// up). The worker is a module made from a Blob: it imports the same glue
// and .wasm (cached by the browser), runs `bakeGltf`, posts the progress
// (frames sampled, at most every 50 ms) and the baked bytes, or the error.
export function bakeInWorker(bytes, name, onProgress) {
  const glue = new URL("../../../throng_web.js", import.meta.url).href;
  const source = `import init, { bakeGltf } from ${JSON.stringify(glue)};
self.onmessage = async ({ data }) => {
  try {
    await init();
    let last = 0;
    const out = bakeGltf(data.bytes, data.name, (done, total) => {
      const now = performance.now();
      if (now - last > 50 || done === total) {
        last = now;
        self.postMessage({ progress: [done, total] });
      }
    });
    self.postMessage({ baked: out }, [out.buffer]);
  } catch (e) {
    self.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
};`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, { type: "module" });
    const end = () => {
      worker.terminate();
      URL.revokeObjectURL(url);
    };
    worker.onmessage = ({ data }) => {
      if (data.progress) {
        if (onProgress) onProgress(data.progress[0], data.progress[1]);
        return;
      }
      end();
      if (data.error) reject(new Error(data.error));
      else resolve(data.baked);
    };
    worker.onerror = (e) => {
      end();
      reject(new Error(`the bake worker failed: ${e.message}`));
    };
    worker.postMessage({ bytes: bytes.slice(), name });
  });
}
