#!/usr/bin/env node
// The operator CLI runs the compiled code; `npm run build` (or `npm start`) makes it.
import('../dist/main.js');
