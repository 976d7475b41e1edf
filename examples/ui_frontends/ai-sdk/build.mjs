// Bundles the page with esbuild into dist/: index.html, assets/main.js, assets/main.css.
// Run by `npm run build` (after `tsc --noEmit`); nothing here is fetched at run time.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.tsx", "src/main.css"],
  outdir: "dist/assets",
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync("index.html", "dist/index.html");
