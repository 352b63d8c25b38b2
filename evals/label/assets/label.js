// The review page's keys: r right, w wrong, s skip, u undo, e the reason box (Esc leaves it).
// Every label is written by the server the moment it is given; undo asks it to remove the line.
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll("article.item"));
  var done = document.getElementById("done");
  var why = document.getElementById("why");
  var msg = document.getElementById("msg");
  var token = document.querySelector('meta[name="label-token"]').getAttribute("content");
  var pos = 0;
  var history = [];
  var busy = false;

  function say(text, bad) {
    msg.textContent = text;
    msg.className = bad ? "bad" : "";
  }

  function show(i) {
    pos = Math.max(0, Math.min(i, items.length));
    items.forEach(function (el, k) { el.hidden = k !== pos; });
    done.hidden = pos < items.length;
    window.scrollTo(0, 0);
  }

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Label-Token": token },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return { error: r.status + " " + r.statusText }; })
        .then(function (data) {
          if (!r.ok) { throw new Error(data.error || r.statusText); }
          return data;
        });
    });
  }

  function label(verdict) {
    if (busy || pos >= items.length) { return; }
    busy = true;
    var at = pos;
    post("/label", { i: Number(items[at].dataset.i), label: verdict, why: why.value })
      .then(function (d) {
        history.push({ kind: "label", i: at });
        why.value = "";
        say("labelled " + (verdict === "pass" ? "right" : "wrong") + ": " + d.where);
        show(at + 1);
      })
      .catch(function (e) { say("not saved: " + e.message, true); })
      .then(function () { busy = false; });
  }

  function skip() {
    if (busy || pos >= items.length) { return; }
    history.push({ kind: "skip", i: pos });
    say("skipped");
    show(pos + 1);
  }

  function undo() {
    if (busy) { return; }
    var last = history.pop();
    if (!last) { say("nothing to undo"); return; }
    if (last.kind !== "label") { say("back to a skipped answer"); show(last.i); return; }
    busy = true;
    post("/undo", { i: Number(items[last.i].dataset.i) })
      .then(function (d) {
        why.value = d.why || "";
        say("label removed from " + d.where);
        show(last.i);
      })
      .catch(function (e) { history.push(last); say("not undone: " + e.message, true); })
      .then(function () { busy = false; });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.target === why) {
      if (ev.key === "Escape") { ev.preventDefault(); why.blur(); }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    var act = { r: function () { label("pass"); }, w: function () { label("fail"); },
      s: skip, u: undo, e: function () { why.focus(); } }[ev.key];
    if (act) { ev.preventDefault(); act(); }
  });
  document.getElementById("b-right").addEventListener("click", function () { label("pass"); });
  document.getElementById("b-wrong").addEventListener("click", function () { label("fail"); });
  document.getElementById("b-skip").addEventListener("click", skip);
  document.getElementById("b-undo").addEventListener("click", undo);
  show(0);
})();
