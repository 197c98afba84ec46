//! [`Cursor`]: a node of the AST, its kind, spelling, type, extent (as a
//! byte [`Span`] of the main file, widened over macro invocations) and
//! children.

#![allow(non_upper_case_globals)]

use super::*;
use crate::model::program::Element;

/// A node of the AST (or of the preprocessing record).
#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    pub(super) raw: CXCursor,
    pub(super) tu: &'tu TranslationUnit<'tu>,
}

impl std::fmt::Debug for Cursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Cursor({:?} '{}' {:?})",
            self.kind(),
            self.spelling(),
            self.span()
        )
    }
}

impl PartialEq for Cursor<'_> {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: both cursors are valid values.
        unsafe { clang_equalCursors(self.raw, other.raw) != 0 }
    }
}

extern "C" fn collect_child(
    child: CXCursor,
    _parent: CXCursor,
    data: CXClientData,
) -> CXChildVisitResult {
    // SAFETY: `data` is the `&mut Vec<CXCursor>` passed by `Cursor::children`,
    // alive for the duration of the visit.
    let v = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    v.push(child);
    CXChildVisit_Continue
}

impl<'tu> Cursor<'tu> {
    /// The node's type: a declaration's as written (a parameter declared
    /// `double A[N][M]` has the array type), an expression's value type.
    pub fn ty(&self) -> Type<'tu> {
        // SAFETY: valid cursor; types are plain values.
        let raw = unsafe { clang_getCursorType(self.raw) };
        Type {
            raw,
            _tu: PhantomData,
        }
    }

    /// The type of the declaration this one belongs to (an enumerator's
    /// enumeration), if it has one.
    pub fn semantic_parent_type(&self) -> Option<Type<'tu>> {
        // SAFETY: valid cursor; a null result is checked before its type is read.
        let raw = unsafe {
            let p = clang_getCursorSemanticParent(self.raw);
            if clang_Cursor_isNull(p) != 0 {
                return None;
            }
            clang_getCursorType(p)
        };
        Type::wrap(raw)
    }

    /// True for a compound literal (`(double[3]){1, 2, 3}`).
    pub fn is_compound_literal(&self) -> bool {
        // SAFETY: reading the kind of a valid cursor.
        unsafe { clang_getCursorKind(self.raw) == CXCursor_CompoundLiteralExpr }
    }

    /// True for a declaration that is a definition (a function with its body).
    pub fn is_definition(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_isCursorDefinition(self.raw) != 0 }
    }

    /// The kind of node.
    pub fn kind(&self) -> CursorKind {
        // SAFETY: reading the kind of a valid cursor.
        CursorKind::from_raw(unsafe { clang_getCursorKind(self.raw) })
    }

    /// clang's spelling: the name of declarations, references and calls.
    pub fn spelling(&self) -> String {
        // SAFETY: valid cursor; the string is taken over.
        take_string(unsafe { clang_getCursorSpelling(self.raw) })
    }

    /// The node's bytes in the main file (file locations), if it is there,
    /// widened over the macro invocations it starts or ends inside (see the
    /// module comment).
    pub fn span(&self) -> Option<Span> {
        let key = self.key();
        if let Some(s) = self.tu.spans.borrow().get(&key) {
            return *s;
        }
        let s = self.compute_span();
        self.tu.spans.borrow_mut().insert(key, s);
        s
    }

    /// The raw value of the cursor, as a key: equal keys are the same node.
    pub fn key(&self) -> CursorKey {
        let r = &self.raw;
        (
            r.kind as i64,
            r.xdata as i64,
            [r.data[0] as usize, r.data[1] as usize, r.data[2] as usize],
        )
    }

    /// [`Cursor::span`], computed.
    fn compute_span(&self) -> Option<Span> {
        let sp = self.raw_span()?;
        if self.kind() == CursorKind::MacroExpansion {
            return Some(sp);
        }
        Some(self.tu.invocations().widen(sp))
    }

    /// clang's extent of the node in the main file, not widened.
    pub(super) fn raw_span(&self) -> Option<Span> {
        // SAFETY: valid cursor.
        let range = unsafe { clang_getCursorExtent(self.raw) };
        if self.kind() == CursorKind::MacroExpansion {
            return self.tu.main_span(range);
        }
        // SAFETY: range accessors on a value range.
        let (s, e) = unsafe { (clang_getRangeStart(range), clang_getRangeEnd(range)) };
        let start = self.tu.node_offset(s)?;
        let end = self.tu.node_offset(e)?;
        // A node whose last token a macro definition supplies ends at the
        // invocation's start, before an argument it starts in: the span
        // from there reaches into the invocation, which widening covers.
        Some(Span::new(start.min(end), start.max(end)))
    }

    /// The translation unit's root (its file-scope declarations are its children).
    pub fn translation_root(&self) -> Cursor<'tu> {
        self.tu.root()
    }

    /// The direct children, in order.
    pub fn children(&self) -> Vec<Cursor<'tu>> {
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the visitor only pushes into `raw`, which outlives the call.
        unsafe {
            clang_visitChildren(
                self.raw,
                collect_child,
                &mut raw as *mut Vec<CXCursor> as *mut c_void,
            );
        }
        raw.into_iter()
            .map(|raw| Cursor { raw, tu: self.tu })
            .collect()
    }

    /// The declaration (or macro definition) this node refers to.
    pub fn referenced(&self) -> Option<Cursor<'tu>> {
        // SAFETY: valid cursor; a null result is checked.
        let r = unsafe { clang_getCursorReferenced(self.raw) };
        // SAFETY: checking a cursor value.
        if unsafe { clang_Cursor_isNull(r) } != 0 {
            return None;
        }
        Some(Cursor {
            raw: r,
            tu: self.tu,
        })
    }

    /// The initializer of a variable declaration, if it has one.
    pub fn initializer(&self) -> Option<Cursor<'tu>> {
        if self.kind() != CursorKind::VarDecl {
            return None;
        }
        // SAFETY: valid VarDecl cursor; a null result is checked.
        let r = unsafe { clang_Cursor_getVarDeclInitializer(self.raw) };
        // SAFETY: checking a cursor value.
        if unsafe { clang_Cursor_isNull(r) } != 0 {
            return None;
        }
        Some(Cursor {
            raw: r,
            tu: self.tu,
        })
    }

    /// The integer value of a constant expression, when clang can evaluate it.
    pub fn eval_int(&self) -> Option<i64> {
        if !self.kind().is_expression() {
            return None;
        }
        // SAFETY: valid expression cursor; the result is disposed.
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let v = if clang_EvalResult_getKind(r) == CXEval_Int {
                if clang_EvalResult_isUnsignedInt(r) != 0 {
                    i64::try_from(clang_EvalResult_getAsUnsigned(r)).ok()
                } else {
                    Some(clang_EvalResult_getAsLongLong(r))
                }
            } else {
                None
            };
            clang_EvalResult_dispose(r);
            v
        }
    }

    /// The value of an enumerator.
    pub fn enum_value(&self) -> Option<i64> {
        if self.kind() != CursorKind::EnumConstantDecl {
            return None;
        }
        // SAFETY: valid enumerator cursor.
        Some(unsafe { clang_getEnumConstantDeclValue(self.raw) })
    }

    /// True when the node's type is an integer type whose values need not fit
    /// in an `int` (`unsigned`, `long`, `long long`, `size_t`, `int64_t`...).
    pub fn is_wide_integer(&self) -> bool {
        // SAFETY: valid cursor; types are plain values.
        let kind = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)).kind };
        matches!(
            kind,
            CXType_UInt
                | CXType_ULong
                | CXType_ULongLong
                | CXType_UInt128
                | CXType_Long
                | CXType_LongLong
                | CXType_Int128
        )
    }

    /// The canonical type class of the node.
    pub fn type_class(&self) -> TypeClass {
        // SAFETY: valid cursor; types are plain values.
        let kind = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)).kind };
        match kind {
            CXType_Bool | CXType_Char_U | CXType_UChar | CXType_Char16 | CXType_Char32
            | CXType_UShort | CXType_UInt | CXType_ULong | CXType_ULongLong | CXType_UInt128
            | CXType_Char_S | CXType_SChar | CXType_WChar | CXType_Short | CXType_Int
            | CXType_Long | CXType_LongLong | CXType_Int128 | CXType_Enum => TypeClass::Integer,
            CXType_Float | CXType_Double | CXType_LongDouble | CXType_Half | CXType_Float16
            | CXType_Float128 => TypeClass::Floating,
            CXType_Pointer => TypeClass::Pointer,
            CXType_ConstantArray
            | CXType_IncompleteArray
            | CXType_VariableArray
            | CXType_DependentSizedArray => TypeClass::Array,
            _ => TypeClass::Other,
        }
    }

    /// For an integer-typed node: whether its canonical type is signed, and
    /// its size in bytes.
    pub fn int_type(&self) -> Option<(bool, i64)> {
        // SAFETY: valid cursor; types are plain values.
        let ty = unsafe { clang_getCanonicalType(clang_getCursorType(self.raw)) };
        let signed = match ty.kind {
            CXType_Char_S | CXType_SChar | CXType_WChar | CXType_Short | CXType_Int
            | CXType_Long | CXType_LongLong | CXType_Int128 => true,
            CXType_Bool | CXType_Char_U | CXType_UChar | CXType_Char16 | CXType_Char32
            | CXType_UShort | CXType_UInt | CXType_ULong | CXType_ULongLong | CXType_UInt128 => {
                false
            }
            _ => return None,
        };
        // SAFETY: plain query on a type value; negative results are errors.
        let size = unsafe { clang_Type_getSizeOf(ty) };
        (size > 0).then_some((signed, size))
    }

    /// clang's spelling of the node's type (as written, typedef names kept;
    /// an expression's type is that of its value: `double` for `A[i][j]`).
    pub fn type_spelling(&self) -> String {
        // SAFETY: valid cursor; types are plain values; the string is taken over.
        take_string(unsafe { clang_getTypeSpelling(clang_getCursorType(self.raw)) })
    }

    /// The layout of a declaration's canonical type: whether it is a
    /// pointer (and `restrict`-qualified), and how many subscripts index
    /// contiguous memory from it (a pointer or an array, then every array
    /// level below it; 0 for a scalar). `None` for other types (structs,
    /// functions).
    pub fn layout(&self) -> Option<TypeLayout> {
        // SAFETY: valid cursor; types are plain values.
        let written = unsafe { clang_getCursorType(self.raw) };
        // SAFETY: plain query on a type value.
        let mut ty = unsafe { clang_getCanonicalType(written) };
        let is_array = |k| {
            matches!(
                k,
                CXType_ConstantArray
                    | CXType_IncompleteArray
                    | CXType_VariableArray
                    | CXType_DependentSizedArray
            )
        };
        let (pointer, restrict) = match ty.kind {
            CXType_Pointer => {
                // SAFETY: plain queries on type values. A parameter written
                // `double a[restrict N]` has the qualifier on its decayed type
                // only (not on the canonical pointer libclang 14 returns).
                let restrict = unsafe {
                    clang_isRestrictQualifiedType(ty) != 0
                        || clang_isRestrictQualifiedType(written) != 0
                };
                ty = unsafe { clang_getCanonicalType(clang_getPointeeType(ty)) };
                (true, restrict)
            }
            // A parameter declared as an array (`double a[restrict][M]`):
            // libclang 14 reports the array type, whose first brackets hold
            // the qualifiers of the pointer it decays to.
            k if is_array(k) => {
                // SAFETY: plain query on a type value; the string is taken over.
                let spelled = take_string(unsafe { clang_getTypeSpelling(written) });
                let is_restrict = |w: &str| matches!(w, "restrict" | "__restrict" | "__restrict__");
                let quals = spelled
                    .split_once('[')
                    .and_then(|(_, rest)| rest.split_once(']'))
                    .map_or("", |(q, _)| q);
                let spelled_restrict = quals
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(is_restrict);
                // clang prints `double [restrict][M]` as `double[][M]`: the
                // tokens after the parameter's name tell.
                let written_restrict = || {
                    let (Some(span), Some(at)) = (self.span(), self.location()) else {
                        return false;
                    };
                    let toks = self.tu.tokens(span);
                    let mut after = toks.iter().skip_while(|t| t.span.start <= at);
                    after.next().is_some_and(|t| t.text == "[")
                        && after
                            .take_while(|t| t.text != "]")
                            .any(|t| is_restrict(&t.text))
                };
                (false, spelled_restrict || written_restrict())
            }
            _ => {
                return (self.type_class() == TypeClass::Integer
                    || self.type_class() == TypeClass::Floating)
                    .then_some(TypeLayout {
                        pointer: false,
                        restrict: false,
                        levels: 0,
                    })
            }
        };
        let mut levels = usize::from(pointer);
        while is_array(ty.kind) {
            levels += 1;
            // SAFETY: plain query on an array type value.
            ty = unsafe { clang_getCanonicalType(clang_getArrayElementType(ty)) };
        }
        // `restrict` promises nothing of the pointers stored in the memory
        // it covers (`Grid *restrict g`: `g->ex` and `g->hy` may overlap;
        // `double **restrict a`: its rows may): only arrays of numbers
        // behind it count as covered.
        let numbers = matches!(
            ty.kind,
            CXType_Bool
                | CXType_Char_U
                | CXType_UChar
                | CXType_UShort
                | CXType_UInt
                | CXType_ULong
                | CXType_ULongLong
                | CXType_Char_S
                | CXType_SChar
                | CXType_Short
                | CXType_Int
                | CXType_Long
                | CXType_LongLong
                | CXType_Float
                | CXType_Double
                | CXType_LongDouble
                | CXType_Enum
        );
        Some(TypeLayout {
            pointer,
            restrict: restrict && numbers,
            levels,
        })
    }

    /// True for a variable with automatic storage: a parameter, or a
    /// variable of a function body declared neither `static` nor `extern`
    /// (its value dies with the call).
    pub fn is_automatic(&self) -> bool {
        match self.kind() {
            CursorKind::ParmDecl => true,
            CursorKind::VarDecl => {
                // SAFETY: valid cursors.
                let (sc, parent) = unsafe {
                    (
                        clang_Cursor_getStorageClass(self.raw),
                        clang_getCursorKind(clang_getCursorSemanticParent(self.raw)),
                    )
                };
                matches!(sc, CX_SC_None | CX_SC_Auto | CX_SC_Register)
                    && parent == CXCursor_FunctionDecl
            }
            _ => false,
        }
    }

    /// clang's name of the node's kind (`StructDecl`, `InitListExpr`, ...),
    /// for the kinds [`CursorKind`] does not list.
    pub fn kind_name(&self) -> String {
        // SAFETY: reading the kind of a valid cursor; the string is taken over.
        take_string(unsafe { clang_getCursorKindSpelling(clang_getCursorKind(self.raw)) })
    }

    /// The storage class written on a declaration.
    pub fn storage(&self) -> Storage {
        // SAFETY: valid cursor; a plain query.
        match unsafe { clang_Cursor_getStorageClass(self.raw) } {
            CX_SC_None => Storage::None,
            CX_SC_Extern => Storage::Extern,
            CX_SC_Static => Storage::Static,
            CX_SC_Auto => Storage::Auto,
            CX_SC_Register => Storage::Register,
            _ => Storage::Other,
        }
    }

    /// True for a thread-local variable (`_Thread_local`, `__thread`,
    /// `thread_local`): each thread has its own copy.
    pub fn is_thread_local(&self) -> bool {
        // SAFETY: valid cursor; a plain query.
        self.kind() == CursorKind::VarDecl
            && unsafe { clang_getCursorTLSKind(self.raw) } != CXTLS_None
    }

    /// The tokens of a macro definition (name, parameters and body), as spellings.
    pub fn definition_tokens(&self) -> Vec<(TokenKind, String)> {
        // SAFETY: extent of a valid cursor.
        let range = unsafe { clang_getCursorExtent(self.raw) };
        self.tu
            .tokenize(range)
            .into_iter()
            .map(|(k, t, _)| (k, t))
            .collect()
    }

    /// True for a function-like macro definition.
    pub fn is_macro_function_like(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Cursor_isMacroFunctionLike(self.raw) != 0 }
    }

    /// Main-file offset of the node's location (a declaration's name, a
    /// reference's identifier), if in the main file.
    pub fn location(&self) -> Option<usize> {
        // SAFETY: valid cursor.
        let loc = unsafe { clang_getCursorLocation(self.raw) };
        self.tu.main_offset(loc)
    }

    /// True when the node's location is in a system header (or built in).
    pub fn is_in_system_header(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.raw)) != 0 }
    }

    /// True when the node's location is in the main file (not a header).
    pub fn is_in_main_file(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Location_isFromMainFile(clang_getCursorLocation(self.raw)) != 0 }
    }
}

/// What [`Cursor::storage`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// None written.
    None,
    /// `extern`.
    Extern,
    /// `static`.
    Static,
    /// `auto`.
    Auto,
    /// `register`.
    Register,
    /// Anything else (private extern, OpenCL's).
    Other,
}

/// A type of the AST, as clang spells and classifies it.
#[derive(Clone, Copy)]
pub struct Type<'tu> {
    raw: CXType,
    _tu: PhantomData<&'tu TranslationUnit<'tu>>,
}

impl std::fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Type({:?} '{}')", self.kind(), self.spelling())
    }
}

/// What [`Type::kind`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `void`.
    Void,
    /// A pointer (not a block pointer).
    Pointer,
    /// An array of constant size.
    ConstantArray,
    /// An array of variable size (a VLA, or `[*]`).
    VariableArray,
    /// An array of unknown size (`[]`).
    IncompleteArray,
    /// A function type (with or without prototype).
    Function,
    /// An enumeration.
    Enum,
    /// A typedef name or other sugar (see [`Type::canonical`]).
    Sugar,
    /// Anything else.
    Other,
}

impl<'tu> Type<'tu> {
    fn wrap(raw: CXType) -> Option<Type<'tu>> {
        (raw.kind != CXType_Invalid).then_some(Type {
            raw,
            _tu: PhantomData,
        })
    }

    /// The kind of this type node (not desugared).
    pub fn kind(&self) -> TypeKind {
        match self.raw.kind {
            CXType_Void => TypeKind::Void,
            CXType_Pointer => TypeKind::Pointer,
            CXType_ConstantArray => TypeKind::ConstantArray,
            CXType_VariableArray => TypeKind::VariableArray,
            CXType_IncompleteArray => TypeKind::IncompleteArray,
            CXType_FunctionProto | CXType_FunctionNoProto => TypeKind::Function,
            CXType_Enum => TypeKind::Enum,
            CXType_Typedef | CXType_Elaborated | CXType_Attributed | CXType_Unexposed => {
                TypeKind::Sugar
            }
            _ => TypeKind::Other,
        }
    }

    /// clang's spelling (typedef names kept).
    pub fn spelling(&self) -> String {
        // SAFETY: plain query on a type value; the string is taken over.
        take_string(unsafe { clang_getTypeSpelling(self.raw) })
    }

    /// The number of elements of a constant-size array type.
    pub fn array_len(&self) -> Option<i64> {
        // SAFETY: plain query on a type value (-1 for other types).
        let n = unsafe { clang_getArraySize(self.raw) };
        (n >= 0).then_some(n)
    }

    /// True for a function type declared without a prototype (`int f()`,
    /// a K&R definition).
    pub fn is_unprototyped(&self) -> bool {
        self.raw.kind == CXType_FunctionNoProto
    }

    /// The canonical type (typedefs and other sugar removed).
    pub fn canonical(&self) -> Type<'tu> {
        // SAFETY: plain query on a type value.
        let raw = unsafe { clang_getCanonicalType(self.raw) };
        Type {
            raw,
            _tu: PhantomData,
        }
    }

    /// The type a pointer points to (`None` for other types).
    pub fn pointee(&self) -> Option<Type<'tu>> {
        if self.raw.kind != CXType_Pointer {
            return None;
        }
        // SAFETY: plain query on a pointer type value.
        Self::wrap(unsafe { clang_getPointeeType(self.raw) })
    }

    /// The element type of an array (`None` for other types).
    pub fn element(&self) -> Option<Type<'tu>> {
        if !matches!(
            self.kind(),
            TypeKind::ConstantArray | TypeKind::VariableArray | TypeKind::IncompleteArray
        ) {
            return None;
        }
        // SAFETY: plain query on an array type value.
        Self::wrap(unsafe { clang_getArrayElementType(self.raw) })
    }

    /// True when this type node is `const`-qualified.
    pub fn is_const(&self) -> bool {
        // SAFETY: plain query on a type value.
        unsafe { clang_isConstQualifiedType(self.raw) != 0 }
    }

    /// True when this type node is `volatile`-qualified.
    pub fn is_volatile(&self) -> bool {
        // SAFETY: plain query on a type value.
        unsafe { clang_isVolatileQualifiedType(self.raw) != 0 }
    }

    /// The parameter types of a prototyped function type (`None` for
    /// other types).
    pub fn arg_types(&self) -> Option<Vec<Type<'tu>>> {
        // SAFETY: plain query on a type value (-1 for non-function types).
        let n = unsafe { clang_getNumArgTypes(self.raw) };
        let n = u32::try_from(n).ok()?;
        // SAFETY: `k` is below the number of parameters.
        (0..n)
            .map(|k| Self::wrap(unsafe { clang_getArgType(self.raw, k) }))
            .collect()
    }

    /// The result type of a function type (`None` for other types).
    pub fn result(&self) -> Option<Type<'tu>> {
        // SAFETY: plain query on a type value (invalid for other types).
        Self::wrap(unsafe { clang_getResultType(self.raw) })
    }

    /// True for an arithmetic type (integer, enumeration or real floating),
    /// after desugaring.
    pub fn is_arithmetic(&self) -> bool {
        self.is_integer()
            || matches!(
                self.canonical().raw.kind,
                CXType_Float
                    | CXType_Double
                    | CXType_LongDouble
                    | CXType_Half
                    | CXType_Float16
                    | CXType_Float128
            )
    }

    /// True for `_Bool`, after desugaring.
    pub fn is_bool(&self) -> bool {
        self.canonical().raw.kind == CXType_Bool
    }

    /// True for a `_Complex` type, after desugaring.
    pub fn is_complex(&self) -> bool {
        self.canonical().raw.kind == CXType_Complex
    }

    /// The spelling of a floating type the device has no arithmetic for
    /// (`long double`, `__float128`), reached through pointers, arrays and
    /// `_Complex`; `None` for other types.
    pub fn host_only_float(&self) -> Option<&'static str> {
        let t = self.canonical();
        match t.raw.kind {
            CXType_LongDouble => Some("long double"),
            CXType_Float128 => Some("__float128"),
            CXType_Pointer => t.pointee()?.host_only_float(),
            CXType_ConstantArray | CXType_IncompleteArray | CXType_VariableArray => {
                t.element()?.host_only_float()
            }
            CXType_Complex => {
                // SAFETY: plain query on a complex type value.
                Self::wrap(unsafe { clang_getElementType(t.raw) })?.host_only_float()
            }
            _ => None,
        }
    }

    /// The type as C's strict aliasing rules tell it apart from others,
    /// after desugaring (signed and unsigned variants are one); `None` for
    /// a character type, which may access any object, and for the types
    /// it does not tell apart (`_Bool`, enums, pointers, structs, `void`).
    pub fn strict_element(&self) -> Option<Element> {
        Some(match self.canonical().raw.kind {
            CXType_Short | CXType_UShort => Element::Short,
            CXType_Int | CXType_UInt => Element::Int,
            CXType_Long | CXType_ULong => Element::Long,
            CXType_LongLong | CXType_ULongLong => Element::LongLong,
            CXType_Float => Element::Float,
            CXType_Double => Element::Double,
            CXType_LongDouble => Element::LongDouble,
            _ => return None,
        })
    }

    /// True for an integer type (`char`, `_Bool` and enums included),
    /// after desugaring.
    pub fn is_integer(&self) -> bool {
        matches!(
            self.canonical().raw.kind,
            CXType_Bool
                | CXType_Char_U
                | CXType_UChar
                | CXType_Char16
                | CXType_Char32
                | CXType_UShort
                | CXType_UInt
                | CXType_ULong
                | CXType_ULongLong
                | CXType_UInt128
                | CXType_Char_S
                | CXType_SChar
                | CXType_WChar
                | CXType_Short
                | CXType_Int
                | CXType_Long
                | CXType_LongLong
                | CXType_Int128
                | CXType_Enum
        )
    }
}
