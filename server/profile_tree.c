/* profile_tree.c -- call trees, inverted trees and sandwiches of a profile
 * view, and its functions table (see profile_tree.h). */
#include "profile_tree.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "idmap.h"
#include "profile_shape.h"

#define TREE_NONE UINT32_MAX
#define TREE_MAX_NODE_COUNT (1u << 30)

typedef struct tree_node {
    uint64_t value, self;
    uint32_t sym; /* TREE_NONE for the root */
    uint32_t first_child, next_sibling;
    uint32_t depth;
    uint32_t folds; /* its first folded frame (tree_fold), TREE_NONE: none */
    int keep;
} tree_node;

/* A frame folded into a node, with the samples it was in. */
typedef struct tree_fold {
    uint64_t value;
    uint64_t path; /* the last path that counted it: once per path */
    uint32_t sym, next;
} tree_fold;

typedef struct tree {
    const profile_view *v;
    tree_node *nodes;
    size_t count, cap;
    idmap children; /* (parent + 1) << 32 | sym -> node */
    tree_fold *folds;
    size_t fold_count, fold_cap;
    idmap fold_index; /* (node + 1) << 32 | sym -> fold */
    uint64_t path;
} tree;

/* A kept frame of a stack (leaf-first index `at`) and its folded frames
 * [fold_lo, at). */
typedef struct tree_step {
    uint32_t at, fold_lo;
} tree_step;

static const char *tree_name(const profile_view *v, uint32_t sym)
{
    return v->syms.items[sym].name;
}

/* A symbol's line when it is one line of a method (split), else 0. */
static uint32_t tree_line(const profile_view *v, uint32_t sym)
{
    return sym == TREE_NONE || !v->syms.items[sym].split ? 0 : v->syms.items[sym].line;
}

/* The node's "file" and "line" (symbols.h): a split frame's line, else the
 * method's first line; nothing when its PDB was not found or not asked for. */
static void tree_line_json(const symbol *sym, json_t *obj)
{
    if (!obj || !sym || !sym->file)
        return;
    json_object_set_new(obj, "file", json_string(sym->file));
    json_object_set_new(obj, "line", sym->line ? json_integer(sym->line) : json_null());
    json_object_set_new(obj, "split", json_boolean(sym->split));
}

const char *profile_tree_kind_name(int kind)
{
    switch (kind) {
    case SYMBOL_METHOD: return "method";
    case SYMBOL_NATIVE: return "native";
    default: return "label";
    }
}

/* ---- building -------------------------------------------------------------------- */

static uint32_t tree_new_node(tree *t, uint32_t parent, uint32_t sym)
{
    uint32_t i;

    if (t->count >= TREE_MAX_NODE_COUNT ||
        grow_reserve((void **)&t->nodes, &t->cap, t->count, sizeof(*t->nodes), 1024,
                     TREE_MAX_NODE_COUNT, GROW_KEEP) != 0)
        return TREE_NONE;
    i = (uint32_t)t->count++;
    t->nodes[i] = (tree_node){.sym = sym,
                              .first_child = TREE_NONE,
                              .next_sibling = TREE_NONE,
                              .folds = TREE_NONE,
                              .keep = 1};
    if (parent != TREE_NONE) {
        t->nodes[i].depth = t->nodes[parent].depth + 1;
        t->nodes[i].next_sibling = t->nodes[parent].first_child;
        t->nodes[parent].first_child = i;
    }
    return i;
}

static int tree_init(tree *t, const profile_view *v)
{
    memset(t, 0, sizeof(*t));
    t->v = v;
    return tree_new_node(t, TREE_NONE, TREE_NONE) == 0 ? 0 : -1;
}

static void tree_free(tree *t)
{
    free(t->nodes);
    free(t->folds);
    idmap_free(&t->children);
    idmap_free(&t->fold_index);
    memset(t, 0, sizeof(*t));
}

static int tree_fold_add(tree *t, uint32_t node, uint32_t sym, uint64_t count)
{
    uint64_t key = (uint64_t)(node + 1) << 32 | sym;
    uint32_t i = idmap_get(&t->fold_index, key);

    if (i == IDMAP_MISSING) {
        if (grow_reserve((void **)&t->folds, &t->fold_cap, t->fold_count, sizeof(*t->folds), 256,
                         TREE_MAX_NODE_COUNT, GROW_KEEP) != 0 ||
            idmap_put(&t->fold_index, key, (uint32_t)t->fold_count) != 0)
            return -1;
        i = (uint32_t)t->fold_count++;
        t->folds[i] = (tree_fold){0, 0, sym, t->nodes[node].folds};
        t->nodes[node].folds = i;
    }
    if (t->folds[i].path != t->path) {
        t->folds[i].path = t->path;
        t->folds[i].value += count;
    }
    return 0;
}

/* Adds one path: the steps of stack st, steps[0] nearest the root of the
 * tree, each under the one before. */
static int tree_add_path(tree *t, const profile_view_stack *st, const tree_step *steps, uint32_t n)
{
    const profile_view *v = t->v;
    uint32_t node = 0, k, f;

    t->path++;
    t->nodes[0].value += st->count;
    for (k = 0; k < n; k++) {
        uint32_t sym = v->frames[st->first + steps[k].at];
        uint64_t key = (uint64_t)(node + 1) << 32 | sym;
        uint32_t child = idmap_get(&t->children, key);

        if (child == IDMAP_MISSING) {
            if ((child = tree_new_node(t, node, sym)) == TREE_NONE ||
                idmap_put(&t->children, key, child) != 0)
                return -1;
        }
        t->nodes[child].value += st->count;
        for (f = steps[k].fold_lo; f < steps[k].at; f++)
            if (tree_fold_add(t, child, v->frames[st->first + f] & ~PROFILE_SHAPE_FOLDED,
                              st->count) != 0)
                return -1;
        node = child;
    }
    t->nodes[node].self += st->count;
    return 0;
}

static void tree_reverse(tree_step *s, uint32_t n)
{
    uint32_t k;
    for (k = 0; k < n / 2; k++) {
        tree_step x = s[k];
        s[k] = s[n - 1 - k];
        s[n - 1 - k] = x;
    }
}

/* The kept frames of stack st, root first, each with its folded frames. */
static uint32_t tree_steps(const profile_view *v, const profile_view_stack *st, tree_step *out)
{
    uint32_t n = 0, k, lo = 0;

    for (k = 0; k < st->depth; k++) { /* leaf first */
        if (v->frames[st->first + k] & PROFILE_SHAPE_FOLDED)
            continue;
        out[n++] = (tree_step){k, lo};
        lo = k + 1;
    }
    tree_reverse(out, n); /* root first */
    return n;
}

/* ---- pruning and JSON ------------------------------------------------------------ */

/* Most samples first; at equal samples the shallower first (so a parent always
 * comes before its children), then the older. */
static int tree_rank(const void *a, const void *b, void *arg)
{
    const tree_node *n = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    if (n[x].value != n[y].value)
        return n[x].value > n[y].value ? -1 : 1;
    if (n[x].depth != n[y].depth)
        return n[x].depth < n[y].depth ? -1 : 1;
    return (x > y) - (x < y);
}

/* Keeps the PROFILE_TREE_MAX_NODES heaviest nodes (a set closed under parents). */
static int tree_prune(tree *t)
{
    uint32_t *order;
    size_t i;

    if (t->count <= PROFILE_TREE_MAX_NODES)
        return 0;
    order = malloc((t->count - 1) * sizeof(*order));
    if (!order)
        return -1;
    for (i = 1; i < t->count; i++)
        order[i - 1] = (uint32_t)i;
    qsort_r(order, t->count - 1, sizeof(*order), tree_rank, t->nodes);
    for (i = PROFILE_TREE_MAX_NODES - 1; i < t->count - 1; i++)
        t->nodes[order[i]].keep = 0;
    free(order);
    return 0;
}

/* Siblings: most samples first, then by name. */
static int tree_sibling_order(const void *a, const void *b, void *arg)
{
    const tree *t = arg;
    const tree_node *x = &t->nodes[*(const uint32_t *)a], *y = &t->nodes[*(const uint32_t *)b];

    int c;

    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    if ((c = strcmp(tree_name(t->v, x->sym), tree_name(t->v, y->sym))) != 0 || x->sym == y->sym)
        return c;
    if (tree_line(t->v, x->sym) != tree_line(t->v, y->sym)) /* split: by line */
        return tree_line(t->v, x->sym) < tree_line(t->v, y->sym) ? -1 : 1;
    return x->sym < y->sym ? -1 : 1; /* two symbols of one name and line: a stable order */
}

/* Folded frames: most samples first; at equal samples the named before the
 * nameless ("libcoreclr.so+0x5fb350"), then by name. */
static int tree_fold_order(const void *a, const void *b, void *arg)
{
    const tree *t = arg;
    const tree_fold *x = &t->folds[*(const uint32_t *)a], *y = &t->folds[*(const uint32_t *)b];
    const char *nx = tree_name(t->v, x->sym), *ny = tree_name(t->v, y->sym);
    int ax = strstr(nx, "+0x") != NULL, ay = strstr(ny, "+0x") != NULL;

    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    if (ax != ay)
        return ax - ay;
    return strcmp(nx, ny);
}

static json_t *tree_node_json(const char *name, const char *module, const char *kind,
                              uint64_t value, uint64_t self, json_t *children)
{
    return json_pack("{s:s, s:o, s:s, s:I, s:I, s:o}", "name", name, "module",
                     module ? json_string(module) : json_null(), "kind", kind, "value",
                     (json_int_t)value, "self", (json_int_t)self, "children", children);
}

/* "folded" and "folded_other" of node n, when frames were folded into it. */
static int tree_folds_json(const tree *t, const tree_node *n, json_t *obj)
{
    uint32_t order[PROFILE_TREE_MAX_FOLDED + 1], f, count = 0, k;
    json_t *list;
    size_t other = 0;

    if (n->folds == TREE_NONE)
        return 0;
    /* keeps the heaviest in a small sorted window */
    for (f = n->folds; f != TREE_NONE; f = t->folds[f].next) {
        if (count < PROFILE_TREE_MAX_FOLDED + 1)
            order[count++] = f;
        else if (tree_fold_order(&f, &order[PROFILE_TREE_MAX_FOLDED], (void *)t) < 0)
            order[PROFILE_TREE_MAX_FOLDED] = f;
        qsort_r(order, count, sizeof(*order), tree_fold_order, (void *)t);
        other++;
    }
    other = other > PROFILE_TREE_MAX_FOLDED ? other - PROFILE_TREE_MAX_FOLDED : 0;
    if (!(list = json_array()))
        return -1;
    for (k = 0; k < count && k < PROFILE_TREE_MAX_FOLDED; k++) {
        const tree_fold *x = &t->folds[order[k]];
        const symbol *sym = &t->v->syms.items[x->sym];
        json_array_append_new(list, json_pack("{s:s, s:o, s:I}", "name", sym->name, "module",
                                              sym->module ? json_string(sym->module) : json_null(),
                                              "samples", (json_int_t)x->value));
    }
    json_object_set_new(obj, "folded", list);
    if (other)
        json_object_set_new(obj, "folded_other", json_integer((json_int_t)other));
    return 0;
}

static json_t *tree_json(const tree *t, uint32_t i)
{
    const tree_node *n = &t->nodes[i];
    const symbol *sym = n->sym == TREE_NONE ? NULL : &t->v->syms.items[n->sym];
    json_t *kids = json_array(), *out;
    uint32_t *order = NULL, c;
    size_t count = 0, k;
    uint64_t shown = 0;

    for (c = n->first_child; c != TREE_NONE; c = t->nodes[c].next_sibling)
        count += t->nodes[c].keep != 0;
    if (count && !(order = malloc(count * sizeof(*order)))) {
        json_decref(kids);
        return NULL;
    }
    count = 0;
    for (c = n->first_child; c != TREE_NONE; c = t->nodes[c].next_sibling)
        if (t->nodes[c].keep)
            order[count++] = c;
    if (count > 1)
        qsort_r(order, count, sizeof(*order), tree_sibling_order, (void *)t);
    for (k = 0; k < count; k++) {
        json_t *child = tree_json(t, order[k]);
        if (!child) {
            free(order);
            json_decref(kids);
            return NULL;
        }
        json_array_append_new(kids, child);
        shown += t->nodes[order[k]].value;
    }
    free(order);
    if (shown + n->self < n->value) { /* children cut by the node limit */
        uint64_t rest = n->value - n->self - shown;
        json_array_append_new(kids,
                              tree_node_json("[pruned]", NULL, "label", rest, rest, json_array()));
    }
    out = tree_node_json(sym ? sym->name : "all", sym ? sym->module : NULL,
                         sym ? profile_tree_kind_name(sym->kind) : "label", n->value, n->self,
                         kids);
    tree_line_json(sym, out);
    if (out && tree_folds_json(t, n, out) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* The tree as JSON, pruned first; NULL when out of memory. */
static json_t *tree_finish(tree *t) { return tree_prune(t) == 0 ? tree_json(t, 0) : NULL; }

/* ---- the three orientations ------------------------------------------------------- */

/* Which symbols are the focus's: its name (and module, when given), never a label. */
static unsigned char *tree_focus_symbols(const profile_view *v, const profile_tree_opts *o)
{
    unsigned char *focus = calloc(v->syms.count + 1, 1);
    size_t i;

    for (i = 0; focus && i < v->syms.count; i++) {
        const symbol *s = &v->syms.items[i];
        focus[i] = s->kind != SYMBOL_LABEL && strcmp(s->name, o->focus) == 0 &&
                   (!o->focus_module || (s->module && strcmp(s->module, o->focus_module) == 0));
    }
    return focus;
}

/* Builds the tree of every stack (or, for a sandwich, of the part from the
 * focus on, in the direction asked): callers 1 walks from the focus toward
 * the root, else toward the leaf (inverted: from the leaf toward the root). */
static int tree_build(tree *t, const profile_tree_opts *o, int callers, uint64_t *focus_samples)
{
    const profile_view *v = t->v;
    tree_step *steps = malloc((v->frame_count + 1) * sizeof(*steps));
    unsigned char *focus = o->focus ? tree_focus_symbols(v, o) : NULL;
    size_t i;
    int rc = 0;

    if (!steps || (o->focus && !focus)) {
        free(steps);
        free(focus);
        return -1;
    }
    for (i = 0; i < v->stack_count && rc == 0; i++) {
        const profile_view_stack *st = &v->stacks[i];
        uint32_t n = tree_steps(v, st, steps), from = 0;

        if (o->focus) {
            while (from < n && !focus[v->frames[st->first + steps[from].at]])
                from++;
            if (from == n)
                continue; /* the method is not on this stack */
            if (callers) {
                n = from + 1;
                from = 0;
                tree_reverse(steps, n); /* the focus first, then who called it */
            } else if (focus_samples) {
                *focus_samples += st->count;
            }
        } else if (o->inverted) {
            tree_reverse(steps, n);
        }
        rc = tree_add_path(t, st, steps + from, n - from);
    }
    free(steps);
    free(focus);
    return rc;
}

int profile_tree_json(const profile_view *v, const profile_tree_opts *o, json_t *obj,
                      const char **why)
{
    tree t;
    json_t *root;
    uint64_t focus_samples = 0;
    int pass;

    for (pass = 0; pass < (o->focus ? 2 : 1); pass++) {
        if (tree_init(&t, v) != 0 || tree_build(&t, o, pass == 1, &focus_samples) != 0 ||
            !(root = tree_finish(&t))) {
            tree_free(&t);
            *why = "out of memory building the call tree";
            return -1;
        }
        tree_free(&t);
        json_object_set_new(obj, !o->focus ? "tree" : pass == 0 ? "callees" : "callers", root);
    }
    if (o->focus)
        json_object_set_new(obj, "focus",
                            json_pack("{s:s, s:o, s:I}", "name", o->focus, "module",
                                      o->focus_module ? json_string(o->focus_module) : json_null(),
                                      "samples", (json_int_t)focus_samples));
    return 0;
}

/* ---- the functions table ----------------------------------------------------------- */

typedef struct tree_fn {
    uint64_t self, total, stack; /* stack: the last stack that counted it, + 1 */
} tree_fn;

static int tree_fn_order(const void *a, const void *b, void *arg)
{
    const tree_fn *f = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    if (f[x].total != f[y].total)
        return f[x].total > f[y].total ? -1 : 1;
    if (f[x].self != f[y].self)
        return f[x].self > f[y].self ? -1 : 1;
    return (x > y) - (x < y);
}

int profile_tree_functions(const profile_view *v, json_t *obj, const char **why)
{
    tree_fn *fn = calloc(v->syms.count + 1, sizeof(*fn));
    uint32_t *order = malloc((v->syms.count + 1) * sizeof(*order));
    json_t *list = json_array();
    size_t i, n = 0;

    if (!fn || !order || !list) {
        free(fn);
        free(order);
        json_decref(list);
        *why = "out of memory listing the functions";
        return -1;
    }
    for (i = 0; i < v->stack_count; i++) {
        const profile_view_stack *st = &v->stacks[i];
        uint32_t k;
        int leaf = 1;
        for (k = 0; k < st->depth; k++) { /* leaf first */
            uint32_t sym = v->frames[st->first + k];
            if (sym & PROFILE_SHAPE_FOLDED)
                continue;
            if (leaf)
                fn[sym].self += st->count;
            leaf = 0;
            if (fn[sym].stack != i + 1) {
                fn[sym].stack = i + 1;
                fn[sym].total += st->count;
            }
        }
    }
    for (i = 0; i < v->syms.count; i++)
        if (fn[i].total && v->syms.items[i].kind != SYMBOL_LABEL)
            order[n++] = (uint32_t)i;
    qsort_r(order, n, sizeof(*order), tree_fn_order, fn);
    for (i = 0; i < n && i < PROFILE_TREE_MAX_FUNCTIONS; i++) {
        const symbol *sym = &v->syms.items[order[i]];
        json_t *row = json_pack("{s:s, s:o, s:s, s:I, s:I}", "name", sym->name, "module",
                                sym->module ? json_string(sym->module) : json_null(), "kind",
                                profile_tree_kind_name(sym->kind), "self",
                                (json_int_t)fn[order[i]].self, "total",
                                (json_int_t)fn[order[i]].total);
        tree_line_json(sym, row);
        json_array_append_new(list, row);
    }
    free(fn);
    free(order);
    json_object_set_new(obj, "functions", list);
    return 0;
}
