// The comparison page: sort the grid, show only disagreements, and open a cell to see every
// run's answer to that case side by side, with a word diff against the baseline's answer and
// each check's result. All text is set with textContent: nothing from a run file is markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("compare-data").textContent);
  var table = document.getElementById("grid");
  var body = table.querySelector("tbody");
  var detail = document.getElementById("detail");
  var rank = { error: 0, review: 1, fail: 2, missing: 3, skip: 4, none: 5, pass: 6 };
  var opened = null;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // Words with the spaces after them: spaces are not matched on their own, so a change reads
  // as whole words removed and added.
  function words(s) { return (s || "").match(/\S+\s*/g) || []; }
  function key(w) { return w.trim(); }

  // Longest common subsequence of the two word lists: what stayed, what went, what came.
  function diff(a, b) {
    var n = a.length, m = b.length, i, j;
    if (n * m > 400000) return null;  // too long to diff here: shown plain
    var t = [];
    for (i = 0; i <= n; i++) { t.push(new Uint16Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) {
      for (j = m - 1; j >= 0; j--) {
        t[i][j] = key(a[i]) === key(b[j]) ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
      }
    }
    var out = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (key(a[i]) === key(b[j])) { out.push(["same", b[j]]); i++; j++; }
      else if (t[i + 1][j] >= t[i][j + 1]) { out.push(["del", a[i]]); i++; }
      else { out.push(["ins", b[j]]); j++; }
    }
    for (; i < n; i++) out.push(["del", a[i]]);
    for (; j < m; j++) out.push(["ins", b[j]]);
    return out;
  }

  function answerBlock(text, base, isBase) {
    var p = el("div", null, "answer");
    if (text === null || text === undefined) { p.appendChild(el("em", "no answer")); return p; }
    var parts = isBase || base === null || base === undefined ? null : diff(words(base), words(text));
    if (!parts) { p.textContent = text; return p; }
    // A changed stretch shows what went, then what came, each as one block.
    var gone = "", came = "";
    function flush() {
      if (gone) p.appendChild(el("del", gone));
      if (came) p.appendChild(el("ins", came));
      gone = ""; came = "";
    }
    parts.forEach(function (part) {
      if (part[0] === "del") gone += part[1];
      else if (part[0] === "ins") came += part[1];
      else { flush(); p.appendChild(document.createTextNode(part[1])); }
    });
    flush();
    return p;
  }

  function show(button) {
    var ci = +button.getAttribute("data-case"), run = +button.getAttribute("data-run");
    var row = data.grid[ci];
    var baseIndex = data.runs.findIndex(function (r) { return r.key === data.baseline; });
    var baseAnswer = row.cells[baseIndex].answer;
    if (opened) opened.setAttribute("aria-pressed", "false");
    opened = button;
    button.setAttribute("aria-pressed", "true");
    detail.textContent = "";
    var head = el("h2", row.shown_id);
    head.id = "detail-title";
    head.tabIndex = -1;
    detail.appendChild(head);
    detail.appendChild(el("p", row.question, "dim"));
    var close = el("button", "Close (Esc)");
    close.id = "detail-close";
    close.addEventListener("click", hide);
    detail.appendChild(close);
    var sides = el("div", null, "sides");
    row.cells.forEach(function (c, k) {
      var r = data.runs[k];
      var side = el("section", null, "side" + (k === run ? " selected" : ""));
      side.setAttribute("aria-label", r.key + " " + r.label);
      side.appendChild(el("h3", r.key + (k === baseIndex ? " (baseline) " : " ") + r.label));
      side.appendChild(el("p", c.text + (c.score === null ? "" : " · score " + c.score.toFixed(3)), "st-" + c.status));
      if (c.error) side.appendChild(el("p", c.error, "bad"));
      side.appendChild(answerBlock(c.answer, baseAnswer, k === baseIndex));
      var checks = el("table", null, "checks-of");
      Object.keys(c.checks).sort().forEach(function (name) {
        var tr = el("tr");
        tr.appendChild(el("td", name));
        tr.appendChild(el("td", c.checks[name].status, "st-" + c.checks[name].status));
        tr.appendChild(el("td", c.checks[name].detail));
        checks.appendChild(tr);
      });
      side.appendChild(checks);
      sides.appendChild(side);
    });
    detail.appendChild(sides);
    detail.hidden = false;
    head.focus();
  }

  function hide() {
    detail.hidden = true;
    if (opened) { opened.setAttribute("aria-pressed", "false"); opened.focus(); }
  }

  function sortBy(th) {
    var key = th.getAttribute("data-key");
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th[data-key]").forEach(function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x, y;
      if (key === "order") { x = +a.getAttribute("data-order"); y = +b.getAttribute("data-order"); }
      else if (key === "case") { x = a.getAttribute("data-id"); y = b.getAttribute("data-id"); }
      else {
        x = rank[a.cells[+key + 1].getAttribute("data-status")];
        y = rank[b.cells[+key + 1].getAttribute("data-status")];
      }
      if (x === y) return +a.getAttribute("data-order") - +b.getAttribute("data-order");
      return (x < y ? -1 : 1) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  table.querySelectorAll("th[data-key] button.sort").forEach(function (b) {
    b.addEventListener("click", function () { sortBy(b.parentNode); });
  });
  body.addEventListener("click", function (e) {
    var b = e.target.closest("button.cell");
    if (b) show(b);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && !detail.hidden) { e.preventDefault(); hide(); }
  });
  // One check's results instead of the cases' outcomes: each cell shows that check's status
  // in that run, and "disagree" is read for that check alone.
  var byCheck = document.getElementById("grid-check");
  function showCheck() {
    var name = byCheck.value;
    Array.prototype.forEach.call(body.rows, function (tr) {
      var row = data.grid[+tr.getAttribute("data-order")];
      var seen = {};
      row.cells.forEach(function (c, k) {
        var res = name ? c.checks[name] : null;
        var status = name ? (res ? res.status : "none") : c.status;
        var text = name ? status : c.text;
        var td = tr.cells[k + 1], b = td.firstChild;
        td.setAttribute("data-status", status);
        b.className = "cell st-" + status;
        b.textContent = text;
        b.setAttribute("aria-label", row.shown_id + " in " + data.runs[k].key + ": " + (name ? name + " " : "") + text);
        seen[text] = true;
      });
      var differ = Object.keys(seen).length > 1 || !row.same_case;
      tr.classList.toggle("agree", !differ);
      tr.classList.toggle("disagree", differ);
    });
    document.getElementById("n-disagree").textContent = body.querySelectorAll("tr.disagree").length;
    filter();
  }
  var only = document.getElementById("only-disagree");
  function filter() {
    Array.prototype.forEach.call(body.rows, function (r) {
      r.hidden = only.checked && r.classList.contains("agree");
    });
  }
  only.addEventListener("change", filter);
  byCheck.addEventListener("change", showCheck);
  filter();
})();
