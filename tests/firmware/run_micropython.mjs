// Runs a Python script under MicroPython (the official WebAssembly port, npm package
// @micropython/micropython-webassembly-pyscript) with the repository's firmware/ package and
// given data files in its filesystem: node run_micropython.mjs MODULE_DIR REPO SCRIPT [FILE...]
// MODULE_DIR holds node_modules/; FILEs are copied to /data/<basename>; SCRIPT is imported and its
// main() called. Exit 1 on a Python error.
import { readFileSync, readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { createRequire } from "node:module";

const [moduleDir, repo, script, ...files] = process.argv.slice(2);
const require = createRequire(join(resolve(moduleDir), "package.json"));
const { loadMicroPython } = await import(
  require.resolve("@micropython/micropython-webassembly-pyscript/micropython.mjs"));
const mp = await loadMicroPython({
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
  heapsize: 8 * 1024 * 1024,
});
for (const dir of ["/work", "/work/firmware", "/work/tests", "/data"]) mp.FS.mkdir(dir);
for (const name of readdirSync(join(repo, "firmware"))) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile("/work/firmware/" + name, readFileSync(join(repo, "firmware", name)));
  }
}
for (const file of files) mp.FS.writeFile("/data/" + basename(file), readFileSync(file));
mp.FS.writeFile("/work/tests/" + basename(script), readFileSync(script));
try {
  // the script is imported as a module and its main() called
  mp.runPython("import sys\nsys.path.insert(0, '/work/tests')\nsys.path.insert(0, '/work')\n" +
               "import " + basename(script, ".py") + "\n" + basename(script, ".py") + ".main()\n");
} catch (error) {
  if (error.name !== "PythonError") throw error;
  process.stderr.write(error.message + "\n");
  process.exit(1);
}
