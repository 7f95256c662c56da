/** The inline style sheet of the Leaf report page. @internal */
export const REPORT_CSS = `body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#111}
h2{margin-top:1.6em;font-size:1.15em}h3{font-size:.95em;margin:.4em 0}h4{font-size:.85em;margin:.2em 0}
.note{color:#555;font-size:.9em;margin:.2em 0}.dim{color:#777;font-weight:normal}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}th{background:#f5f5f5;text-align:left}
td.n,td.id,td.tr,td.fnd{white-space:nowrap}td.fnd{color:#9a3412}
a{color:#1d4ed8;text-decoration:none}a:hover{text-decoration:underline}
.cards{display:flex;flex-wrap:wrap;gap:.5em;margin:1em 0}.card{border:1px solid #ddd;border-radius:6px;padding:.35em .7em;background:#fafafa}
.card .v{font-size:1.15em;font-weight:600;white-space:nowrap}.card .l{font-size:.78em;color:#555}.c-trunc{border-color:#f59e0b}.c-err{border-color:#dc2626}.c-flag{border-color:#ea580c;background:#fff7ed}
.bar{display:inline-block;width:40px;height:8px;background:#fee2e2;margin-right:6px;vertical-align:middle}.bar span{display:block;height:100%;background:#16a34a}
.marks{margin-left:.4em;letter-spacing:1px}.mark{font-weight:bold}.mark.mflag{background:#ffedd5;border-radius:3px}
.ok{color:#15803d;font-weight:bold}.bad{color:#b91c1c;font-weight:bold}
.badge{display:inline-block;font-size:.75em;padding:0 .45em;border-radius:9px;border:1px solid #ccc;background:#f3f4f6;color:#333;font-weight:normal;white-space:nowrap}
.b-stop{background:#f3f4f6}.b-trunc{background:#fef3c7;border-color:#f59e0b;color:#92400e}.b-err{background:#fee2e2;border-color:#dc2626;color:#991b1b}
.b-ok{background:#dcfce7;border-color:#16a34a;color:#166534}.b-warn{background:#fef3c7;border-color:#d97706;color:#92400e}.b-flag{background:#ffedd5;border-color:#ea580c;color:#9a3412}
section.task{border-top:2px solid #e5e5e5;margin-top:1.5em}.top{font-size:.7em;font-weight:normal;margin-left:.6em}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:.25em 0;padding:.45em .6em;font-size:.82em;line-height:1.35;white-space:pre-wrap;overflow-wrap:anywhere;border-radius:4px}
pre.text{background:#fff;border:1px solid #eee}pre.statement{background:#f8fafc;border-color:#cbd5e1}
pre.code{background:#f6f8fa;border:1px solid #e5e7eb}pre.cmd::before{content:"$ ";color:#888}
pre.out{background:#fbfbfb;border:1px solid #eee;color:#333}pre.out.err{background:#fef2f2;border-color:#fca5a5;color:#991b1b}
.diff .add{background:#dcfce7;color:#14532d;display:block}.diff .del{background:#fee2e2;color:#7f1d1d;display:block}
.diff .hunk{color:#6d28d9;display:block}.diff .meta{color:#555;font-weight:600;display:block}.diff .ctx{display:block}.diff .flag{outline:2px solid #ea580c}
details.episode{border:1px solid #ddd;border-left:4px solid #bbb;border-radius:4px;margin:.35em 0;background:#fff}
details.episode.e-ok{border-left-color:#16a34a}details.episode.e-fail{border-left-color:#dc2626}details.episode.e-err{border-left-color:#7f1d1d;background:#fff8f8}
details.episode>summary{padding:.35em .6em;cursor:pointer;font-size:.88em}details.episode[open]>summary{background:#f5f5f5;border-bottom:1px solid #ddd}
.sep{color:#bbb}.conv{padding:.4em .7em}
.msg{margin:.35em 0;padding:.25em .5em;border-left:3px solid transparent;font-size:.9em}
.m-system,.m-user{border-left-color:#94a3b8}.m-assistant{border-left-color:#2563eb;background:#f8faff}.m-tool{border-left-color:#d1d5db}.m-err{border-left-color:#dc2626}
.msg.flagged,.section.flagged{border-left-color:#ea580c;background:#fff7ed;outline:1px dashed #ea580c}
.msg:target,.section:target{box-shadow:0 0 0 3px #fdba74}
.role{font-size:.85em;margin-bottom:.1em}.idx{color:#888;font-size:.85em;margin-right:.2em}
.call{margin:.3em 0 .3em .5em}.call-head{font-size:.85em}.tool{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:bold;background:#e0e7ff;color:#3730a3;padding:0 .35em;border-radius:3px}
.path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
details.fold>summary{cursor:pointer;font-size:.85em;color:#333}details.fold{margin:.2em 0}
.final{font-size:.8em;font-style:italic}.small{font-size:.85em}
.compaction{margin:.5em 0;padding:.3em .5em;border:1px dashed #7c3aed;background:#f5f3ff;font-size:.88em}
.finding{margin:.3em 0;font-size:.85em;color:#9a3412}.finding code{background:#ffedd5;padding:0 .25em;white-space:pre-wrap;overflow-wrap:anywhere}.finding.top{padding:.3em .5em;border:1px solid #fdba74;background:#fff7ed}
.section{margin:.5em 0;padding:.25em .5em;border-left:3px solid #e5e7eb}`;
