// validate.js: runs the Khronos glTF validator (npm package gltf-validator) on the files named on
// the command line. Exit status: 0 = no errors in any file, 1 = errors, 77 = validator missing.
// External resources (images, buffers) are read relative to each file.
'use strict';
let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.log('gltf-validator is not installed (npm install gltf-validator)');
  process.exit(77);
}
const fs = require('fs');
const path = require('path');

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try {
          resolve(new Uint8Array(fs.readFileSync(path.resolve(path.dirname(file), decodeURIComponent(uri)))));
        } catch (e) {
          reject(e.toString());
        }
      }),
  });
  const is = report.issues;
  console.log(`${file}: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`);
  for (const m of is.messages) {
    if (m.severity <= 1) {
      console.log(`  [${m.severity === 0 ? 'error' : 'warning'}] ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
  }
  return is.numErrors === 0;
}

(async () => {
  let ok = true;
  for (const f of process.argv.slice(2)) {
    ok = (await validate(f)) && ok;
  }
  process.exit(ok ? 0 : 1);
})();
