// Page helpers: find and make elements, read a form's fields, say something in the reply line.

export const $ = (id) => document.getElementById(id);
export const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) e.append(kid);
  return e;
};
export const radio = (name) => { const r = document.querySelector(`input[name="${name}"]:checked`); return r ? r.value : null; };
export const int = (id) => Number.parseInt($(id).value, 10);
export const say = (cls, text) => { const r = $("reply"); r.className = "reply " + cls; r.textContent = text; };
