/** The console's one stylesheet (the inspector adds its own after it). */
export const CONSOLE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f8fa; }
header { padding: 10px 20px; background: #fff; border-bottom: 1px solid #d0d7de; }
nav { display: flex; gap: 14px; align-items: baseline; margin-bottom: 8px; }
nav a { color: #0969da; text-decoration: none; }
nav a[aria-current="page"] { font-weight: 600; color: #1b1f24; border-bottom: 2px solid #fd8c73; }
form { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
label { display: flex; flex-direction: column; font-size: 12px; color: #57606a; }
input { font: inherit; padding: 4px 6px; min-width: 160px; }
textarea { font: 12px/1.4 ui-monospace, monospace; width: 100%; box-sizing: border-box; }
button { font: inherit; padding: 4px 10px; }
main { padding: 16px 20px; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 15px; margin: 12px 0 8px; }
.grid { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.grid > section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px; min-width: 0; }
.wide { grid-column: 1 / -1; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
figure { margin: 0; }
figcaption { font-weight: 600; margin-bottom: 6px; }
.chart { position: relative; height: 260px; }
.spark { position: relative; width: 160px; height: 32px; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #d0d7de; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; background: #f6f8fa; padding: 8px; margin: 0; }
.meta { color: #57606a; font-size: 12px; }
.state { font-size: 12px; padding: 1px 8px; border-radius: 10px; background: #ddf4ff; vertical-align: middle; }
.state-active { background: #dafbe1; } .state-paused { background: #fff8c5; } .state-ended { background: #eaeef2; }
#uplifts p { font-size: 16px; margin: 4px 0; }
#uplifts p.up { color: #1a7f37; } #uplifts p.down { color: #cf222e; }
.problems li { color: #cf222e; font-family: ui-monospace, monospace; font-size: 12px; }
.examples { padding-left: 0; list-style: none; } .examples li { margin-bottom: 6px; }
.params { display: flex; flex-wrap: wrap; gap: 8px; margin: 6px 0; }
.scroll { overflow-x: auto; }
#status.error, .error { color: #cf222e; }
`;
