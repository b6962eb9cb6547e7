// Polls an emission's creation and shows its progress; the page works without it (it reloads).
// Its words come from the page, in the operator's language.
"use strict";
(function () {
  const job = document.getElementById("job");
  if (!job || job.dataset.state !== "running") return;
  const $ = (id) => document.getElementById(id);
  // Thousands as the page writes them: a narrow space in French, a comma in English.
  const sep = document.documentElement.lang === "fr" ? "\u202f" : ",";
  const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  async function poll() {
    let v;
    try {
      const r = await fetch(job.dataset.status, { headers: { Accept: "application/json" }, cache: "no-store" });
      if (!r.ok) throw new Error(r.status);
      v = await r.json();
    } catch (e) {
      $("job-state").textContent = job.dataset.lost;
      setTimeout(poll, 2000);
      return;
    }
    $("job-progress").max = v.total;
    $("job-progress").value = v.done;
    $("job-percent").textContent = v.percent_shown;
    $("job-units").textContent = group(v.done);
    $("job-elapsed").textContent = v.elapsed;
    job.dataset.state = v.state;
    const st = $("job-state");
    st.className = "state " + v.state;
    if (v.state === "running") {
      st.textContent = job.dataset.running;
      setTimeout(poll, 400);
    } else if (v.state === "done") {
      st.textContent = job.dataset.done;
      $("job-next").hidden = false;
    } else {
      st.textContent = job.dataset.failed + " " + v.error;
    }
  }
  poll();
})();

// Refreshes the first page's « Today » card every minute, in place, from the page itself; the
// page is whole without it.
(function () {
  const today = document.getElementById("today");
  if (!today || !today.dataset.refresh) return;
  const every = Number(today.dataset.refresh);
  async function refresh() {
    try {
      const r = await fetch(location.href, { cache: "no-store", headers: { Accept: "text/html" } });
      if (r.ok) {
        const page = new DOMParser().parseFromString(await r.text(), "text/html");
        const fresh = page.getElementById("today");
        if (fresh) today.innerHTML = fresh.innerHTML;
      }
    } catch (e) {
      // Offline a moment: the next round tries again.
    }
    setTimeout(refresh, every);
  }
  setTimeout(refresh, every);
})();
