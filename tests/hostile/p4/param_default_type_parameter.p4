// hostile: a parameter default naming its declaration's type parameter as a value: was accepted
// expect-exit: 2
// expect-message: {case}:5:34: error: 'X' is a type parameter, not a value
control k(bool b);
package pk<X>(k sub = k((bit<8>) X == 0));
