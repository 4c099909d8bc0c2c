// The browser side of tools/web.sh: headless Chromium (the system's, driven
// by playwright-core) opens the served page.
//
//   node browser.mjs test BASE OUT WIDTH HEIGHT QUERY TERRAIN_QUERY CONSUMER_BASE
//     The page with WebGPU and with WebGL2 at QUERY: the title contract
//     (`throng: ok backend=… path=… frames=N`) and a screenshot of the
//     canvas each (OUT/webgpu.png, OUT/webgl2.png); the page at
//     TERRAIN_QUERY on WebGPU (OUT/webgpu-terrain.png); the steered crowd
//     on WebGPU; then the error cases:
//     two bodies sharing a frames file (baked with --shared-clips) must
//     draw; a missing model, a truncated one, an old format version, a
//     body without its frames file, a negative count — each must end in
//     `throng: error …` with the message shown.
//     then the npm package's consumer project served at CONSUMER_BASE
//     (tools/web/consumer.html) drives the JavaScript API on both
//     backends: OUT/consumer-BACKEND.png and OUT/fox-web.throng.
//   node browser.mjs consumer BASE OUT WIDTH HEIGHT
//     Only the consumer project.
//   node browser.mjs steered BASE
//     Only the steered default page's 600 frames and overlap checks.
//   node browser.mjs bench BASE
//     Time from navigation to the first frame and fps at 1k and 10k
//     instances, on both backends.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(`${process.env.THRONG_WEB_TOOLS}/node/`);
const { chromium } = require("playwright-core");

// WebGL2 through ANGLE on SwiftShader; WebGPU on SwiftShader's Vulkan. Without
// the two Vulkan switches Chromium 156 gives a WebGPU adapter whose canvas
// cannot present (no shared-image backing for the swap chain: the device is
// lost at the first frame).
const ARGS = [
  "--no-sandbox",
  "--enable-unsafe-webgpu",
  "--enable-unsafe-swiftshader",
  "--use-angle=swiftshader",
  "--enable-features=Vulkan",
  "--use-vulkan=swiftshader",
  "--ignore-gpu-blocklist",
];
// Per page, sized to the work so a hang is reported within a minute:
// SwiftShader draws on the CPU, and a page with a crowd shows its ten
// frames in well under this on a 2-core machine (each page's time is
// printed); an error page reports in a second or two.
const SETTLE_MS = 60_000;
const ERROR_SETTLE_MS = 20_000;
// The record path each backend must draw with: the GPU-driven path on
// WebGPU, the packaged (uniform-buffer) path on WebGL2. A page that fell
// back to another path fails.
const PATHS = { webgpu: "gpu-driven", webgl2: "packaged" };
const OK = /^throng: ok backend=(webgpu|webgl2) path=(\S+) frames=(\d+) occluded=(\d+)$/;

async function open(browser, url, size, settle_ms = SETTLE_MS) {
  const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
  const console_lines = [];
  page.on("console", (m) => console_lines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => console_lines.push(`pageerror: ${e}`));
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction(
    () => document.title.startsWith("throng: ok") || document.title.startsWith("throng: error"),
    null,
    { timeout: settle_ms, polling: 100 },
  );
  return { page, title: await page.title(), console_lines, settled_ms: Date.now() - started };
}

async function test(base, out, width, height, query, terrain_query, consumer_base) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const size = { width: Number(width), height: Number(height) };
  const failures = [];
  // The page's default crowd, steered on WebGPU: Throng's navigate hook
  // compiles on SwiftShader and the crowd runs 600 frames without losing
  // the device (it did, before the hook's flow-field loops were made small:
  // WEB.md); its positions, read back from the GPU every few seconds, keep
  // the native navigation tests' overlap bound. It runs beside the other
  // pages (its own tab), awaited at the end.
  const steering = steered(browser, base);
  for (const backend of ["webgpu", "webgl2"]) {
    const url = `${base}/index.html?${query}&backend=${backend}`;
    const { page, title, console_lines, settled_ms } = await open(browser, url, size);
    const m = OK.exec(title);
    console.log(`${backend}: ${title} (${settled_ms} ms)`);
    if (!m || m[1] !== backend || m[2] !== PATHS[backend]) {
      failures.push(
        `${url}: title "${title}" (want backend=${backend} path=${PATHS[backend]})\n  ${console_lines.join("\n  ")}`,
      );
    } else {
      // The statistics line sits over the canvas: hidden for the picture.
      await page.addStyleTag({ content: "#stats { display: none !important; }" });
      await page.locator("#throng").screenshot({ path: `${out}/${backend}.png` });
    }
    await page.close();
  }
  // The default scene, on the demo's terrain: a screenshot on WebGPU.
  {
    const url = `${base}/index.html?${terrain_query}&backend=webgpu`;
    const { page, title, console_lines, settled_ms } = await open(browser, url, size);
    console.log(`terrain (webgpu): ${title} (${settled_ms} ms)`);
    if (!OK.test(title)) {
      failures.push(`${url}: title "${title}"\n  ${console_lines.join("\n  ")}`);
    } else {
      await page.addStyleTag({ content: "#stats { display: none !important; }" });
      await page.locator("#throng").screenshot({ path: `${out}/webgpu-terrain.png` });
    }
    await page.close();
  }
  // The eye camera on WebGPU: occlusion culling finds Foxes hidden behind
  // the front rows (the title's occluded count), and the picture equals
  // the one drawn without it (compared by tools/web.sh).
  for (const [name, q] of [["webgpu-eye", ""], ["webgpu-eye-unculled", "&occlusion=0"]]) {
    const url = `${base}/index.html?instances=2000&time=1.25&seed=1&camera=eye${q}&backend=webgpu`;
    const { page, title, console_lines, settled_ms } = await open(browser, url, size);
    console.log(`${name}: ${title} (${settled_ms} ms)`);
    const m = OK.exec(title);
    const occluded = Number(m?.[4] ?? -1);
    if (!m || (q === "" ? occluded <= 0 : occluded !== 0)) {
      failures.push(`${url}: title "${title}" (want occluded ${q === "" ? "> 0" : "= 0"})\n  ${console_lines.join("\n  ")}`);
    } else {
      await page.addStyleTag({ content: "#stats { display: none !important; }" });
      await page.locator("#throng").screenshot({ path: `${out}/${name}.png` });
    }
    await page.close();
  }

  // A glTF baked in the browser (?gltf=): the Fox's .glb, on WebGL2 (the
  // consumer test bakes it through the API on both backends).
  {
    const url = `${base}/index.html?gltf=fox.glb&instances=100&ground=flat&backend=webgl2`;
    const { page, title, console_lines, settled_ms } = await open(browser, url, size);
    console.log(`?gltf=fox.glb (webgl2): ${title} (${settled_ms} ms)`);
    if (!OK.test(title)) failures.push(`${url}: title "${title}"\n  ${console_lines.join("\n  ")}`);
    await page.close();
  }
  // Bodies baked with --shared-clips: the page fetches their frames file
  // from beside them (WebGPU; the fetch is the same on WebGL2).
  {
    const url = `${base}/index.html?model=shared/a.throng&model=shared/b.throng&instances=40&backend=webgpu`;
    const { page, title, console_lines } = await open(browser, url, size);
    console.log(`bodies sharing a frames file (webgpu): ${title}`);
    if (!OK.test(title)) failures.push(`${url}: title "${title}"\n  ${console_lines.join("\n  ")}`);
    await page.close();
  }
  const errors = [
    ["a missing model", "model=missing.throng", /missing\.throng.*HTTP 404/],
    ["a truncated model", "model=truncated.throng", /truncated\.throng/],
    ["an old format version", "model=old-version.throng", /old-version\.throng.*version/i],
    ["a body without its frames file", "model=alone.throng", /alone\.throng.*frames-[0-9a-f]+\.throng-frames/],
    ["a negative count", "instances=-1", /\?instances=-1 is not a count/],
    ["a truncated glTF", "gltf=truncated.glb", /baking truncated\.glb.*truncated\.glb/],
  ];
  for (const [what, q, expect] of errors) {
    for (const backend of ["webgpu", "webgl2"]) {
      const url = `${base}/index.html?${q}&backend=${backend}`;
      const { page, title } = await open(browser, url, size, ERROR_SETTLE_MS);
      const shown = await page.locator("#error").innerText();
      const visible = await page.locator("#error").isVisible();
      const ok = title.startsWith("throng: error") && expect.test(title) && visible && expect.test(shown.replace(/\n/g, " "));
      console.log(`${what} (${backend}): ${ok ? "reported" : "NOT REPORTED"}: ${title}`);
      if (!ok) failures.push(`${url}: title "${title}", shown "${shown}" (visible ${visible})`);
      await page.close();
    }
  }
  // The npm package driven from a project outside the repository.
  failures.push(...(await consumer(browser, consumer_base, out, size)));
  failures.push(...(await steering));
  await browser.close();
  if (failures.length) {
    console.error(`browser test: ${failures.length} failure(s):\n${failures.join("\n")}`);
    process.exit(1);
  }
}

// The default page (steered) at 100 instances on a small canvas, for 600
// frames: returns its failures.
const STEERED_FRAMES = 600;
const STEERED_MS = 300_000;
// At most 1 % of agents with a centre nearer than 0.8 of the sum of the
// radii to another, from 2 s of the crowd's clock on: the native tests'
// measure (crates/throng-render/tests/render/navigation.rs). Before, the
// herd's random layout is still coming apart (it spawns agents
// overlapping, and steering parts them within about a second).
const MAX_OVERLAP_SHARE = 0.01;
const CHECK_FROM_SECONDS = 2;
async function steered(browser, base) {
  const url = `${base}/index.html?instances=100&backend=webgpu`;
  const { page, title, console_lines, settled_ms } = await open(browser, url, { width: 160, height: 100 });
  console.log(`steered (webgpu): ${title} (${settled_ms} ms)`);
  if (!OK.test(title)) {
    await page.close();
    return [`${url}: title "${title}"\n  ${console_lines.join("\n  ")}`];
  }
  const started = Date.now();
  let worst = { share: 0, frame: 0 }, checks = 0, frames = 0, last = title;
  while (frames < STEERED_FRAMES && Date.now() - started < STEERED_MS) {
    const r = await page.evaluate(async () => {
      const view = window.throngView;
      const seconds = view.seconds;
      const p = await view.readPositions();
      const limit = 0.8 * 2 * view.agentRadius;
      let overlapping = 0;
      const n = p.length / 3;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          if (i !== j && Math.hypot(p[3 * i] - p[3 * j], p[3 * i + 2] - p[3 * j + 2]) < limit) {
            overlapping++;
            break;
          }
        }
      }
      return { share: overlapping / n, n, seconds, title: document.title };
    }).catch((e) => ({ error: e.message }));
    if (r.error) return [`${url}: reading positions: ${r.error}`];
    last = r.title;
    const m = OK.exec(r.title);
    if (!m) break;
    frames = Number(m[3]);
    if (r.seconds >= CHECK_FROM_SECONDS) {
      checks++;
      if (r.share > worst.share) worst = { share: r.share, frame: frames };
    }
    await page.waitForTimeout(3000);
  }
  await page.close();
  console.log(
    `steered (webgpu): ${frames} frames in ${((Date.now() - started) / 1000).toFixed(0)} s, ${checks} position checks, worst overlap ${(100 * worst.share).toFixed(2)} % (frame ${worst.frame}): ${last}`,
  );
  const failures = [];
  if (!OK.test(last) || frames < STEERED_FRAMES) failures.push(`${url}: ${frames} frames, title "${last}"`);
  if (worst.share > MAX_OVERLAP_SHARE) failures.push(`${url}: worst overlap ${(100 * worst.share).toFixed(2)} % at frame ${worst.frame}`);
  if (checks < 10) failures.push(`${url}: only ${checks} position checks from ${CHECK_FROM_SECONDS} s of the crowd's clock on`);
  return failures;
}

// The consumer project (a folder outside the repository that installed the
// npm package) serves consumer.html: on each backend it builds the scene
// through the API, its numbers are checked, the canvas is saved as
// OUT/consumer-BACKEND.png for the comparison with the native picture, its
// frame loop is started and stopped twice, and the view is disposed.
async function consumer(browser, base, out, size) {
  const failures = [];
  for (const backend of ["webgpu", "webgl2"]) {
    const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
    const lines = [];
    page.on("console", (m) => lines.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => lines.push(`pageerror: ${e}`));
    await page.goto(`${base}/consumer.html`);
    await page.waitForFunction(() => document.title === "throng consumer: ready", null, { timeout: 20_000 });
    const started = Date.now();
    let r;
    try {
      r = await page.evaluate((b) => window.runScene(b), backend);
    } catch (e) {
      failures.push(`consumer (${backend}): ${e.message}\n  ${lines.join("\n  ")}`);
      await page.close();
      continue;
    }
    console.log(`consumer (${backend}): ${JSON.stringify(r)} (${Date.now() - started} ms)`);
    const want = [
      [r.backend === backend, `backend ${r.backend}`],
      [r.path.startsWith(PATHS[backend]), `path ${r.path}`],
      [r.clips.join() === "Survey,Walk,Run" && r.sameClips, `clips ${r.clips} (same from the URL: ${r.sameClips})`],
      [r.models.join() === "0,1,2", `model indices ${r.models}`],
      [r.glbClips && r.glbProgress > 0 && r.glbDone?.[0] === r.glbDone?.[1], `the .glb baked in a worker: clips ${r.glbClips}, ${r.glbProgress} progress reports, last ${r.glbDone}`],
      [r.spawned === 1000 && r.instances === 1000, `${r.spawned} spawned, ${r.instances} live`],
      [r.visible > 0, `${r.visible} visible`],
      [/clips\[1\] = 99/.test(r.refused), `bad batch: "${r.refused}"`],
    ];
    for (const [ok, what] of want) if (!ok) failures.push(`consumer (${backend}): ${what}`);
    await page.locator("#crowd").screenshot({ path: `${out}/consumer-${backend}.png` });
    if (backend === "webgpu") {
      const st = await page.evaluate(() => window.steerScene()).catch((e) => ({ error: e.message }));
      console.log(`consumer (webgpu): steer: ${JSON.stringify(st)}`);
      if (st.error || st.agents !== 1000 || !st.finite || Math.abs(st.radius - 0.35) > 1e-4 || !/goals hold 4 floats/.test(st.refused)) {
        failures.push(`consumer (webgpu): steer: ${JSON.stringify(st)}`);
      }
      // The .glb baked on the page's thread, for tools/web.sh to compare
      // its frames with the native bake's.
      const started = Date.now();
      const base64 = await page.evaluate(() => window.bakeFox());
      writeFileSync(`${out}/fox-web.throng`, Buffer.from(base64, "base64"));
      console.log(`consumer: the Fox's .glb baked in the browser in ${Date.now() - started} ms (${out}/fox-web.throng)`);
    }
    const loop = await page.evaluate(() => window.loopScene()).catch((e) => [{ error: e.message }]);
    const pageErrors = lines.filter((l) => l.startsWith("pageerror"));
    console.log(`consumer (${backend}): frame loop: ${JSON.stringify(loop)}${pageErrors.length ? `, ${pageErrors.join("; ")}` : ""}`);
    if (loop.length !== 2 || loop.some((r) => r.error || r.drawn < 3 || r.afterStop !== 0 || !/already running/.test(r.second)) || pageErrors.length) {
      failures.push(`consumer (${backend}): frame loop: ${JSON.stringify(loop)}\n  ${lines.join("\n  ")}`);
    }
    const disposed = await page.evaluate(() => window.disposeScene());
    console.log(`consumer (${backend}): after dispose: ${disposed}`);
    if (!/disposed/.test(disposed)) failures.push(`consumer (${backend}): after dispose: ${disposed}`);
    await page.close();
  }
  return failures;
}

async function bench(base) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const size = { width: 1280, height: 720 };
  console.log("| backend | instances | path | first frame (ms after navigation) | fps |");
  console.log("|---|---|---|---|---|");
  for (const backend of ["webgpu", "webgl2"]) {
    for (const instances of [1000, 10000]) {
      const url = `${base}/index.html?instances=${instances}&backend=${backend}`;
      const { page, title } = await open(browser, url, size);
      const m = OK.exec(title);
      if (!m) {
        console.log(`| ${backend} | ${instances} | error: ${title} | | |`);
        await page.close();
        continue;
      }
      const first = await page.evaluate(() => Number(document.body.dataset.firstFrameMs));
      const frames = async () => Number(OK.exec(await page.title())?.[3] ?? 0);
      const [f0, t0] = [await frames(), Date.now()];
      // SwiftShader draws a frame a second or slower: a long window.
      await page.waitForTimeout(15000);
      const [f1, t1] = [await frames(), Date.now()];
      const fps = ((f1 - f0) * 1000) / (t1 - t0);
      console.log(`| ${backend} | ${instances} | ${m[2]} | ${first.toFixed(0)} | ${fps.toFixed(1)} |`);
      await page.close();
    }
  }
  // The bundled Fox's .glb baked in the browser (on the page's thread, as
  // the worker runs it), three times: the median.
  {
    const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
    await page.goto(`${base}/index.html?instances=0&backend=webgl2`);
    const ms = await page.evaluate(async () => {
      const m = await import("./throng_web.js");
      await m.default();
      const bytes = new Uint8Array(await (await fetch("fox.glb")).arrayBuffer());
      const times = [];
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        m.bakeGltf(bytes, "fox.glb");
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[1];
    });
    console.log(`\nThe Fox's .glb baked in the browser: ${ms.toFixed(0)} ms (median of 3)`);
    await page.close();
  }
  await browser.close();
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "test") await test(...rest);
else if (mode === "bench") await bench(...rest);
else if (mode === "consumer") {
  const [base, out, width, height] = rest;
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const failures = await consumer(browser, base, out, { width: Number(width), height: Number(height) });
  await browser.close();
  if (failures.length) {
    console.error(`consumer test: ${failures.length} failure(s):\n${failures.join("\n")}`);
    process.exit(1);
  }
}
else if (mode === "steered") {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const failures = await steered(browser, ...rest);
  await browser.close();
  if (failures.length) {
    console.error(failures.join("\n"));
    process.exit(1);
  }
}
else {
  console.error("usage: node browser.mjs test BASE OUT WIDTH HEIGHT QUERY TERRAIN_QUERY CONSUMER_BASE | consumer BASE OUT WIDTH HEIGHT | steered BASE | bench BASE");
  process.exit(2);
}
