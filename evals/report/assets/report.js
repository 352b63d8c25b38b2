// The single-run report's table: filters, sorting, pages of rows, and a click that opens a
// case's detail. Rows the page holds in full are shown, hidden and reordered; rows listed in
// brief (a large run's, in the `brief-rows` JSON) become table rows only when their page is
// shown, built with DOM calls and textContent, never from HTML text.
(function () {
  "use strict";
  var table = document.getElementById("cases");
  if (!table) return;
  var PAGE = 500;  // rows on screen at once: a run of 100,000 stays quick to filter and sort
  var RANK = { error: 0, review: 1, fail: 2, pass: 3 };
  var tbody = table.tBodies[0];
  var fStatus = document.getElementById("f-status");
  var fCheck = document.getElementById("f-check");
  var fCategory = document.getElementById("f-category");
  var fText = document.getElementById("f-text");
  var shown = document.getElementById("shown-count");
  var empty = document.getElementById("detail-empty");
  var pager = document.getElementById("pager");
  var pageInfo = document.getElementById("page-info");
  var page = 0;

  function num(v) { return v === "" || v === null ? -Infinity : parseFloat(v); }

  // One item per row: its filter and sort keys, and its table row once it exists.
  var items = Array.prototype.slice.call(tbody.rows).map(function (tr) {
    return {
      tr: tr,
      status: tr.getAttribute("data-status"),
      category: tr.getAttribute("data-category"),
      failing: tr.getAttribute("data-failing").split(" "),
      id: tr.getAttribute("data-k-id"),
      keys: {
        id: tr.getAttribute("data-k-id").toLowerCase(),
        category: tr.getAttribute("data-k-category").toLowerCase(),
        status: num(tr.getAttribute("data-k-status")),
        score: num(tr.getAttribute("data-k-score")),
        failing: num(tr.getAttribute("data-k-failing"))
      }
    };
  });
  var briefEl = document.getElementById("brief-rows");
  (briefEl ? JSON.parse(briefEl.textContent) : []).forEach(function (b) {
    // [label, category, status, score, score as shown, failing names, n failing, by a label]
    items.push({
      tr: null,
      brief: b,
      status: b[2],
      category: b[1] || "(none)",
      failing: b[5] ? b[5].split(" ") : [],
      id: b[0],
      keys: {
        id: b[0].toLowerCase(),
        category: b[1].toLowerCase(),
        status: RANK.hasOwnProperty(b[2]) ? RANK[b[2]] : 3,
        score: b[3] === null ? -Infinity : b[3],
        failing: b[6]
      }
    });
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function briefRow(item) {
    var b = item.brief;
    var tr = el("tr", "case-row brief " + b[2]);
    tr.tabIndex = 0;
    tr.setAttribute("data-status", b[2]);
    tr.setAttribute("data-detail", "detail-brief");
    var first = el("td", "", b[0]);
    if (b[7]) { first.appendChild(document.createTextNode(" ")); first.appendChild(el("span", "tag precedent", "label")); }
    tr.appendChild(first);
    tr.appendChild(el("td", "", b[1]));
    var st = el("td");
    st.appendChild(el("span", "pill " + b[2], b[2]));
    tr.appendChild(st);
    tr.appendChild(el("td", "num", b[4]));
    var fails = el("td");
    b[5].split(" ").filter(Boolean).forEach(function (n) { fails.appendChild(el("span", "chk fail", n)); });
    tr.appendChild(fails);
    tr._item = item;
    return tr;
  }

  function matches(item) {
    var st = item.status;
    var want = fStatus.value;
    if (want === "not-pass" ? st === "pass" : want !== "all" && st !== want) return false;
    if (fCheck.value && item.failing.indexOf(fCheck.value) < 0) return false;
    if (fCategory.value && item.category !== fCategory.value) return false;
    var text = fText.value.trim().toLowerCase();
    return !text || item.keys.id.indexOf(text) >= 0;
  }

  function render() {
    var matched = items.filter(matches);
    var pages = Math.max(1, Math.ceil(matched.length / PAGE));
    if (page >= pages) page = pages - 1;
    var from = page * PAGE;
    var onPage = matched.slice(from, from + PAGE);
    items.forEach(function (item) { if (item.tr) item.tr.hidden = true; });
    var frag = document.createDocumentFragment();  // one reflow, not one per row
    onPage.forEach(function (item) {
      if (!item.tr) item.tr = briefRow(item);
      item.tr.hidden = false;
      frag.appendChild(item.tr);
    });
    tbody.insertBefore(frag, tbody.firstChild);  // the page's rows first, in order
    shown.textContent = matched.length + " of " + items.length;
    pager.hidden = matched.length <= PAGE;
    pageInfo.textContent = "rows " + (matched.length ? from + 1 : 0) + "-" + (from + onPage.length) +
      ", page " + (page + 1) + " of " + pages;
  }

  function applyFilters() { page = 0; render(); }

  function sortBy(th) {
    var key = th.getAttribute("data-key");
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th[data-key]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var indexed = items.map(function (item, i) { return [item.keys[key], i, item]; });
    indexed.sort(function (a, b) {
      if (a[0] < b[0]) return -dir;
      if (a[0] > b[0]) return dir;
      return a[1] - b[1];  // stable
    });
    items = indexed.map(function (t) { return t[2]; });
    render();
  }

  function openRow(tr) {
    tbody.querySelectorAll("tr.selected").forEach(function (r) { r.classList.remove("selected"); r.setAttribute("aria-selected", "false"); });
    document.querySelectorAll("article.detail").forEach(function (d) { d.hidden = true; });
    tr.classList.add("selected");
    tr.setAttribute("aria-selected", "true");
    var detail = document.getElementById(tr.getAttribute("data-detail"));
    if (detail && tr._item) {
      var runId = JSON.parse(document.getElementById("report-data").textContent).run_id;
      var id = tr._item.brief[0].split(" #")[0];
      document.getElementById("brief-title").textContent = tr._item.brief[0] + ": " + tr._item.brief[2];
      document.getElementById("brief-cmd").textContent = "invoke show " + id + " --run " + runId;
    }
    if (detail) detail.hidden = false;
    if (empty) empty.hidden = true;
  }

  [fStatus, fCheck, fCategory].forEach(function (e) { e.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);
  document.getElementById("page-prev").addEventListener("click", function () { if (page > 0) { page -= 1; render(); } });
  document.getElementById("page-next").addEventListener("click", function () { page += 1; render(); });
  table.querySelectorAll("th[data-key] button").forEach(function (b) {
    b.addEventListener("click", function () { sortBy(b.parentNode); });
  });
  tbody.addEventListener("click", function (e) {
    var tr = e.target.closest("tr.case-row");
    if (tr) openRow(tr);
  });
  tbody.addEventListener("keydown", function (e) {
    var tr = e.target.closest("tr.case-row");
    if (tr && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); openRow(tr); }
  });
  render();
})();
